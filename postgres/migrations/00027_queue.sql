-- +goose Up
-- Queue calling (booking/queue.go): being called and being in consultation
-- are steps of an ARRIVED appointment beside its status, so no status,
-- active-state list or constraint over the active states changes here.

-- A skipped patient comes back after this many more calls.
ALTER TABLE clinic_policy ADD COLUMN queue_skip_calls integer NOT NULL DEFAULT 3
    CHECK (queue_skip_calls BETWEEN 0 AND 100);

-- One row per doctor and local day that has called anyone: the row every
-- call and console step locks (two consoles decide one at a time), and
-- the day's call count.
CREATE TABLE queue_days (
    doctor_id bigint NOT NULL REFERENCES resources (id),
    day       date   NOT NULL,
    calls     integer NOT NULL DEFAULT 0 CHECK (calls >= 0),
    PRIMARY KEY (doctor_id, day)
);

-- The queue step of an appointment once it was called.
CREATE TABLE queue_steps (
    appointment_id bigint PRIMARY KEY REFERENCES appointments (id) ON DELETE CASCADE,
    doctor_id      bigint  NOT NULL,
    day            date    NOT NULL,
    step           text    NOT NULL CHECK (step IN ('CALLED', 'SKIPPED', 'IN_CONSULTATION', 'DONE')),
    call_seq       integer NOT NULL CHECK (call_seq > 0),
    calls          integer NOT NULL CHECK (calls > 0),
    skip_seq       integer NOT NULL DEFAULT 0,
    called_at      timestamptz NOT NULL,
    started_at     timestamptz,
    FOREIGN KEY (doctor_id, day) REFERENCES queue_days (doctor_id, day)
);
-- One current call per doctor and day, and each call number of the day
-- given to one appointment: two consoles never call two people at once,
-- nor one person twice with one call.
CREATE UNIQUE INDEX queue_steps_one_called ON queue_steps (doctor_id, day) WHERE step = 'CALLED';
CREATE UNIQUE INDEX queue_steps_call_seq ON queue_steps (doctor_id, day, call_seq);

-- +goose Down
DROP TABLE queue_steps;
DROP TABLE queue_days;
ALTER TABLE clinic_policy DROP COLUMN queue_skip_calls;
