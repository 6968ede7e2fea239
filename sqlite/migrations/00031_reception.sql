-- +goose Up
-- Mirroring postgres/migrations/00031_reception.sql. SQLite cannot alter a
-- CHECK constraint, so staff_users and revocation_marks are rebuilt with
-- the reception role (nothing references either table).
CREATE TABLE staff_users_new (
    name           TEXT PRIMARY KEY,
    password_hash  TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    role           TEXT NOT NULL DEFAULT 'admin'
        CONSTRAINT staff_users_role_check CHECK (role IN ('admin', 'doctor', 'reception')),
    doctor_id      INTEGER REFERENCES resources (id),
    totp_sealed    BLOB,
    totp_seal_key  INTEGER NOT NULL DEFAULT 0,
    totp_last_step INTEGER NOT NULL DEFAULT 0,
    disabled_at    INTEGER
) STRICT;
INSERT INTO staff_users_new (name, password_hash, created_at, updated_at, role, doctor_id, totp_sealed, totp_seal_key, totp_last_step, disabled_at)
    SELECT name, password_hash, created_at, updated_at, role, doctor_id, totp_sealed, totp_seal_key, totp_last_step, disabled_at FROM staff_users;
DROP TABLE staff_users;
ALTER TABLE staff_users_new RENAME TO staff_users;

CREATE TABLE revocation_marks_new (
    role        TEXT    NOT NULL CONSTRAINT revocation_marks_role_check CHECK (role IN ('patient', 'doctor', 'admin', 'reception')),
    subject     TEXT    NOT NULL CONSTRAINT revocation_marks_subject_check CHECK (length(subject) BETWEEN 1 AND 200),
    valid_after INTEGER NOT NULL,
    closed      INTEGER NOT NULL DEFAULT 0 CONSTRAINT revocation_marks_closed_check CHECK (closed IN (0, 1)),
    PRIMARY KEY (role, subject)
) STRICT;
INSERT INTO revocation_marks_new (role, subject, valid_after, closed) SELECT role, subject, valid_after, closed FROM revocation_marks;
DROP TABLE revocation_marks;
ALTER TABLE revocation_marks_new RENAME TO revocation_marks;
CREATE INDEX revocation_marks_valid_after_idx ON revocation_marks (valid_after);
CREATE INDEX revocation_marks_closed_idx ON revocation_marks (role, subject) WHERE closed = 1;

-- The keyed hash of a person's normalized name and birth date; the rows
-- from before are hashed right after the migrations (Store.FillNameIndexes).
ALTER TABLE patients ADD COLUMN name_index BLOB;
CREATE INDEX patients_name_index_idx ON patients (name_index) WHERE name_index IS NOT NULL;

-- The queue's message ahead (Policy.QueueNotifyAhead): a call that leaves
-- an arrived patient that many ahead sends them a message, once per
-- appointment, which its row here records in the call's transaction.
ALTER TABLE clinic_policy ADD COLUMN queue_notify_ahead INTEGER NOT NULL DEFAULT 3
    CONSTRAINT clinic_policy_queue_notify_ahead_check CHECK (queue_notify_ahead BETWEEN 0 AND 20);
CREATE TABLE queue_notices (
    appointment_id INTEGER PRIMARY KEY REFERENCES appointments (id) ON DELETE CASCADE,
    ahead          INTEGER NOT NULL CHECK (ahead > 0),
    sent_at        INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE queue_notices;
ALTER TABLE clinic_policy DROP COLUMN queue_notify_ahead;
DROP INDEX patients_name_index_idx;
ALTER TABLE patients DROP COLUMN name_index;
DELETE FROM revocation_marks WHERE role = 'reception';
UPDATE staff_users SET role = 'admin' WHERE role = 'reception';
