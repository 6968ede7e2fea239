-- +goose Up
-- The front desk: a staff account may be reception (booking.Desk), and its
-- tokens' revocation marks carry that role.
ALTER TABLE staff_users DROP CONSTRAINT staff_users_role_check,
    ADD CONSTRAINT staff_users_role_check CHECK (role IN ('admin', 'doctor', 'reception'));
ALTER TABLE revocation_marks DROP CONSTRAINT revocation_marks_role_check,
    ADD CONSTRAINT revocation_marks_role_check CHECK (role IN ('patient', 'doctor', 'admin', 'reception'));

-- A person is found by name and birth date through the keyed hash of the
-- normalized pair (pii.Keys.NameIndex): names stay sealed. New and changed
-- rows get it on write; the rows from before are hashed in batches right
-- after the migrations by `slotd migrate` and `slotd serve` (which migrates
-- first), since only Go holds the keys (Store.FillNameIndexes).
-- Not unique: two people may share a name and a birth date.
ALTER TABLE patients ADD COLUMN name_index bytea;
CREATE INDEX patients_name_index_idx ON patients (name_index) WHERE name_index IS NOT NULL;

-- The queue's message ahead (Policy.QueueNotifyAhead): a call that leaves
-- an arrived patient that many ahead sends them a message, once per
-- appointment, which its row here records in the call's transaction.
ALTER TABLE clinic_policy ADD COLUMN queue_notify_ahead integer NOT NULL DEFAULT 3
    CONSTRAINT clinic_policy_queue_notify_ahead_check CHECK (queue_notify_ahead BETWEEN 0 AND 20);
CREATE TABLE queue_notices (
    appointment_id bigint PRIMARY KEY REFERENCES appointments (id) ON DELETE CASCADE,
    ahead          integer NOT NULL CHECK (ahead > 0),
    sent_at        timestamptz NOT NULL
);

-- +goose Down
DROP TABLE queue_notices;
ALTER TABLE clinic_policy DROP COLUMN queue_notify_ahead;
DROP INDEX patients_name_index_idx;
ALTER TABLE patients DROP COLUMN name_index;
DELETE FROM revocation_marks WHERE role = 'reception';
ALTER TABLE revocation_marks DROP CONSTRAINT revocation_marks_role_check,
    ADD CONSTRAINT revocation_marks_role_check CHECK (role IN ('patient', 'doctor', 'admin'));
UPDATE staff_users SET role = 'admin' WHERE role = 'reception';
ALTER TABLE staff_users DROP CONSTRAINT staff_users_role_check,
    ADD CONSTRAINT staff_users_role_check CHECK (role IN ('admin', 'doctor'));
