-- +goose Up
-- Mirroring postgres/migrations/00027_queue.sql: queue calling's steps
-- beside ARRIVED, the doctor's day that every call locks, one current call
-- per doctor and day.
ALTER TABLE clinic_policy ADD COLUMN queue_skip_calls INTEGER NOT NULL DEFAULT 3
    CHECK (queue_skip_calls BETWEEN 0 AND 100);

CREATE TABLE queue_days (
    doctor_id INTEGER NOT NULL REFERENCES resources (id),
    day       TEXT    NOT NULL,
    calls     INTEGER NOT NULL DEFAULT 0 CHECK (calls >= 0),
    PRIMARY KEY (doctor_id, day)
) STRICT;

CREATE TABLE queue_steps (
    appointment_id INTEGER PRIMARY KEY REFERENCES appointments (id) ON DELETE CASCADE,
    doctor_id      INTEGER NOT NULL,
    day            TEXT    NOT NULL,
    step           TEXT    NOT NULL CHECK (step IN ('CALLED', 'SKIPPED', 'IN_CONSULTATION', 'DONE')),
    call_seq       INTEGER NOT NULL CHECK (call_seq > 0),
    calls          INTEGER NOT NULL CHECK (calls > 0),
    skip_seq       INTEGER NOT NULL DEFAULT 0,
    called_at      INTEGER NOT NULL,
    started_at     INTEGER,
    FOREIGN KEY (doctor_id, day) REFERENCES queue_days (doctor_id, day)
) STRICT;
CREATE UNIQUE INDEX queue_steps_one_called ON queue_steps (doctor_id, day) WHERE step = 'CALLED';
CREATE UNIQUE INDEX queue_steps_call_seq ON queue_steps (doctor_id, day, call_seq);

-- +goose Down
DROP TABLE queue_steps;
DROP TABLE queue_days;
ALTER TABLE clinic_policy DROP COLUMN queue_skip_calls;
