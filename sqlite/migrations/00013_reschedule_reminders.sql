-- +goose Up
-- Mirrors postgres/migrations/00013_reschedule_reminders.sql.
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

-- The waitlist; see the PostgreSQL migration.
ALTER TABLE slots ADD COLUMN offer_pending INTEGER NOT NULL DEFAULT 0
    CONSTRAINT slots_offer_pending_check CHECK (offer_pending BETWEEN 0 AND booked_count);
ALTER TABLE schedules ADD COLUMN offer_minutes INTEGER CHECK (offer_minutes BETWEEN 1 AND 1440);

CREATE TABLE waitlist_entries (
    id               INTEGER PRIMARY KEY,
    patient_id       INTEGER NOT NULL REFERENCES patients (id),
    doctor_id        INTEGER REFERENCES resources (id),
    department_id    INTEGER REFERENCES departments (id),
    from_at          INTEGER NOT NULL,
    to_at            INTEGER NOT NULL,
    part_of_day      TEXT NOT NULL CHECK (part_of_day IN ('morning', 'afternoon', 'any')),
    state            TEXT NOT NULL CHECK (state IN ('WAITING', 'OFFERED', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'FULFILLED', 'CANCELLED', 'LAPSED')),
    appointment_id   INTEGER CONSTRAINT waitlist_entries_appointment_key UNIQUE REFERENCES appointments (id),
    slot_id          INTEGER REFERENCES slots (id),
    offer_expires_at INTEGER,
    idempotency_key  TEXT NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint      TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    CONSTRAINT waitlist_entries_patient_key_key UNIQUE (patient_id, idempotency_key),
    CHECK ((doctor_id IS NULL) <> (department_id IS NULL)),
    CHECK (state <> 'OFFERED' OR appointment_id IS NOT NULL)
) STRICT;
CREATE INDEX waitlist_entries_doctor_live ON waitlist_entries (doctor_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_department_live ON waitlist_entries (department_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_patient ON waitlist_entries (patient_id, id DESC);

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
DROP TABLE waitlist_entries;
ALTER TABLE schedules DROP COLUMN offer_minutes;
ALTER TABLE slots DROP COLUMN offer_pending;
DROP TABLE reminders;
ALTER TABLE schedules DROP COLUMN reminders;
DROP TABLE reschedules;
