-- +goose Up
-- Mirroring postgres/migrations/00033_openings.sql: announced openings
-- behind a waiting room, and their queues.
CREATE TABLE openings (
    id               INTEGER PRIMARY KEY,
    schedule_id      INTEGER NOT NULL REFERENCES schedules (id),
    opens_at         INTEGER NOT NULL,
    seed             BLOB NOT NULL CHECK (length(seed) = 32),
    seed_commitment  TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    drawn_at         INTEGER,
    admitted_through INTEGER NOT NULL DEFAULT 0 CHECK (admitted_through >= 0),
    admitted_at      INTEGER,
    CONSTRAINT openings_schedule_key UNIQUE (schedule_id, opens_at)
) STRICT;

CREATE TABLE opening_queue (
    id         INTEGER PRIMARY KEY,
    opening_id INTEGER NOT NULL REFERENCES openings (id),
    patient_id INTEGER NOT NULL REFERENCES patients (id),
    joined_at  INTEGER NOT NULL,
    position   INTEGER CHECK (position >= 1),
    CONSTRAINT opening_queue_patient_key UNIQUE (opening_id, patient_id),
    CONSTRAINT opening_queue_position_key UNIQUE (opening_id, position)
) STRICT;
CREATE INDEX opening_queue_patient_idx ON opening_queue (patient_id);

-- +goose Down
DROP TABLE opening_queue;
DROP TABLE openings;
