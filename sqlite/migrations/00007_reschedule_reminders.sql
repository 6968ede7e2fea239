-- +goose Up
-- Mirrors postgres/migrations/00007_reschedule_reminders.sql.
CREATE TABLE reschedules (
    patient_id      INTEGER NOT NULL REFERENCES patients (id),
    idempotency_key TEXT NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     TEXT NOT NULL,
    appointment_id  INTEGER NOT NULL REFERENCES appointments (id),
    from_slot_id    INTEGER NOT NULL REFERENCES slots (id),
    to_slot_id      INTEGER NOT NULL REFERENCES slots (id),
    created_at      INTEGER NOT NULL,
    CONSTRAINT reschedules_patient_key_key PRIMARY KEY (patient_id, idempotency_key)
) STRICT;

ALTER TABLE schedules ADD COLUMN reminders TEXT;

CREATE TABLE reminders (
    appointment_id INTEGER NOT NULL REFERENCES appointments (id),
    offset_minutes INTEGER NOT NULL CHECK (offset_minutes > 0),
    sent           INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    PRIMARY KEY (appointment_id, offset_minutes)
) STRICT;

-- A reschedule moves an appointment in place: the row's own old times must
-- not count as an overlap of its new ones (the trigger compared slots).
DROP TRIGGER appointments_no_overlap_update;
-- +goose StatementBegin
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
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER appointments_no_overlap_update;
-- +goose StatementBegin
CREATE TRIGGER appointments_no_overlap_update
BEFORE UPDATE OF status, start_at, end_at, patient_id, round_id ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
-- +goose StatementEnd
DROP TABLE reminders;
ALTER TABLE schedules DROP COLUMN reminders;
DROP TABLE reschedules;
