-- +goose Up
-- A reschedule's Idempotency-Key: a retry finds the appointment it moved.
CREATE TABLE reschedules (
    patient_id      bigint NOT NULL REFERENCES patients (id),
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     text NOT NULL,
    appointment_id  bigint NOT NULL REFERENCES appointments (id),
    from_slot_id    bigint NOT NULL REFERENCES slots (id),
    to_slot_id      bigint NOT NULL REFERENCES slots (id),
    created_at      timestamptz NOT NULL,
    CONSTRAINT reschedules_patient_key_key PRIMARY KEY (patient_id, idempotency_key)
);

-- A schedule's own reminder offsets ("24h,2h"); NULL takes the server's.
ALTER TABLE schedules ADD COLUMN reminders text;

-- One row per reminder sent (or passed over): the scan that sends them
-- inserts here and enqueues the message in the same transaction, so each
-- offset is announced once, across restarts and processes.
CREATE TABLE reminders (
    appointment_id bigint NOT NULL REFERENCES appointments (id),
    offset_minutes integer NOT NULL CHECK (offset_minutes > 0),
    sent           boolean NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (appointment_id, offset_minutes)
);

-- +goose Down
DROP TABLE reminders;
ALTER TABLE schedules DROP COLUMN reminders;
DROP TABLE reschedules;
