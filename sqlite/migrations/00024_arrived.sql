-- +goose NO TRANSACTION
-- +goose Up
-- ARRIVED: a booked patient checked in on the day. It holds its place like
-- HELD and BOOKED (booking.ActiveStatuses), so every constraint, index and
-- trigger over the active states takes it in. SQLite cannot alter a CHECK
-- constraint: the table is rebuilt by its documented procedure (foreign
-- keys off, outside goose's transaction, in one of its own; payments,
-- reminders and others reference appointments by id, which is kept).
-- +goose StatementBegin
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE appointments_new (
    id              INTEGER PRIMARY KEY,
    slot_id         INTEGER NOT NULL REFERENCES slots (id),
    patient_id      INTEGER NOT NULL REFERENCES patients (id),
    status          TEXT NOT NULL CONSTRAINT appointments_status_check
        CHECK (status IN ('HELD', 'BOOKED', 'ARRIVED', 'CANCELLED', 'EXPIRED', 'COMPLETED', 'NO_SHOW')),
    queue_no        INTEGER NOT NULL CONSTRAINT appointments_queue_no_check CHECK (queue_no >= 1),
    -- start_at/end_at copy the slot's, so that the overlap triggers can
    -- see them without a join.
    start_at        INTEGER NOT NULL,
    end_at          INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL CONSTRAINT appointments_idempotency_key_check CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     TEXT NOT NULL,
    hold_expires_at INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    round_id        INTEGER REFERENCES rounds (id),
    CONSTRAINT appointments_patient_key_key UNIQUE (patient_id, idempotency_key),
    CONSTRAINT appointments_check CHECK (status <> 'HELD' OR hold_expires_at IS NOT NULL)
) STRICT;
INSERT INTO appointments_new (id, slot_id, patient_id, status, queue_no, start_at, end_at, idempotency_key,
        fingerprint, hold_expires_at, created_at, updated_at, round_id)
    SELECT id, slot_id, patient_id, status, queue_no, start_at, end_at, idempotency_key,
        fingerprint, hold_expires_at, created_at, updated_at, round_id FROM appointments;
DROP TABLE appointments;
ALTER TABLE appointments_new RENAME TO appointments;

CREATE UNIQUE INDEX appointments_slot_patient_active ON appointments (slot_id, patient_id)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED');
CREATE UNIQUE INDEX appointments_slot_queue_active ON appointments (slot_id, queue_no)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED');
CREATE INDEX appointments_held_idx ON appointments (hold_expires_at) WHERE status = 'HELD';
CREATE INDEX appointments_slot_held_idx ON appointments (slot_id, hold_expires_at) WHERE status = 'HELD';
CREATE INDEX appointments_round_active_idx ON appointments (round_id, patient_id)
    WHERE round_id IS NOT NULL AND status IN ('HELD', 'BOOKED', 'ARRIVED');
CREATE INDEX appointments_patient_noshow_idx ON appointments (patient_id, start_at) WHERE status = 'NO_SHOW';
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED') AND round_id IS NULL;

CREATE TRIGGER appointments_no_overlap_insert
BEFORE INSERT ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED', 'ARRIVED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED', 'ARRIVED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
CREATE TRIGGER appointments_no_overlap_update
BEFORE UPDATE OF status, start_at, end_at, patient_id, round_id, slot_id ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED', 'ARRIVED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.id <> NEW.id AND o.slot_id <> NEW.slot_id
       AND o.status IN ('HELD', 'BOOKED', 'ARRIVED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
CREATE TRIGGER appointments_round_quota_release
AFTER UPDATE OF status ON appointments
WHEN OLD.round_id IS NOT NULL AND OLD.status IN ('HELD', 'BOOKED', 'ARRIVED')
     AND NEW.status NOT IN ('HELD', 'BOOKED', 'ARRIVED')
BEGIN
    UPDATE round_quotas SET used = used - 1
     WHERE round_id = NEW.round_id AND patient_id = NEW.patient_id;
END;

-- The appointments due on the day by start: the kiosk's candidates for a
-- typed code (ArrivalCandidates), clinic-wide.
CREATE INDEX appointments_due_idx ON appointments (start_at) WHERE status IN ('BOOKED', 'ARRIVED');

-- The check-in window (booking.Policy): from this many minutes before the
-- start to this many after.
ALTER TABLE clinic_policy ADD COLUMN check_in_before_minutes INTEGER NOT NULL DEFAULT 60;
ALTER TABLE clinic_policy ADD COLUMN check_in_after_minutes INTEGER NOT NULL DEFAULT 15;
-- A BOOKED appointment not checked in this long after its start becomes
-- NO_SHOW by itself (booking.Policy.AutoNoShow); 0, the default, is off.
ALTER TABLE clinic_policy ADD COLUMN no_show_grace_minutes INTEGER NOT NULL DEFAULT 0;
COMMIT;
PRAGMA foreign_keys = ON;
-- +goose StatementEnd

-- +goose Down
-- An arrived appointment goes back to BOOKED (the place stays taken), and
-- the indexes and triggers take the older list again; the table keeps its
-- wider CHECK, which the older code never meets.
-- +goose StatementBegin
BEGIN IMMEDIATE;
ALTER TABLE clinic_policy DROP COLUMN no_show_grace_minutes;
ALTER TABLE clinic_policy DROP COLUMN check_in_after_minutes;
ALTER TABLE clinic_policy DROP COLUMN check_in_before_minutes;
DROP INDEX appointments_due_idx;
UPDATE appointments SET status = 'BOOKED' WHERE status = 'ARRIVED';
DROP INDEX appointments_slot_patient_active;
CREATE UNIQUE INDEX appointments_slot_patient_active ON appointments (slot_id, patient_id)
    WHERE status IN ('HELD', 'BOOKED');
DROP INDEX appointments_slot_queue_active;
CREATE UNIQUE INDEX appointments_slot_queue_active ON appointments (slot_id, queue_no)
    WHERE status IN ('HELD', 'BOOKED');
DROP INDEX appointments_round_active_idx;
CREATE INDEX appointments_round_active_idx ON appointments (round_id, patient_id)
    WHERE round_id IS NOT NULL AND status IN ('HELD', 'BOOKED');
DROP INDEX appointments_patient_active_idx;
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED') AND round_id IS NULL;
DROP TRIGGER appointments_no_overlap_insert;
CREATE TRIGGER appointments_no_overlap_insert
BEFORE INSERT ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
DROP TRIGGER appointments_no_overlap_update;
CREATE TRIGGER appointments_no_overlap_update
BEFORE UPDATE OF status, start_at, end_at, patient_id, round_id, slot_id ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.id <> NEW.id AND o.slot_id <> NEW.slot_id
       AND o.status IN ('HELD', 'BOOKED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
DROP TRIGGER appointments_round_quota_release;
CREATE TRIGGER appointments_round_quota_release
AFTER UPDATE OF status ON appointments
WHEN OLD.round_id IS NOT NULL AND OLD.status IN ('HELD', 'BOOKED') AND NEW.status NOT IN ('HELD', 'BOOKED')
BEGIN
    UPDATE round_quotas SET used = used - 1
     WHERE round_id = NEW.round_id AND patient_id = NEW.patient_id;
END;
COMMIT;
-- +goose StatementEnd
