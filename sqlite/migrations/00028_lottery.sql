-- +goose Up
-- Mirroring postgres/migrations/00028_lottery.sql: lottery rounds and their
-- registrations. SQLite adds no table constraint to an existing table, so
-- the lottery's CHECK rides on the commitment column (a column CHECK may name
-- the row's other columns).
ALTER TABLE rounds ADD COLUMN lottery INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN registration_opens_at INTEGER;
ALTER TABLE rounds ADD COLUMN registration_closes_at INTEGER;
ALTER TABLE rounds ADD COLUMN selection_minutes INTEGER NOT NULL DEFAULT 0 CHECK (selection_minutes >= 0);
ALTER TABLE rounds ADD COLUMN selection_group INTEGER NOT NULL DEFAULT 1 CHECK (selection_group >= 1);
ALTER TABLE rounds ADD COLUMN seed BLOB;
ALTER TABLE rounds ADD COLUMN seed_commitment TEXT CONSTRAINT rounds_lottery_check CHECK (NOT lottery OR (registration_opens_at IS NOT NULL
    AND registration_closes_at > registration_opens_at AND registration_closes_at <= opens_at
    AND length(seed) = 32 AND seed_commitment IS NOT NULL));
ALTER TABLE rounds ADD COLUMN drawn_at INTEGER CONSTRAINT rounds_drawn_check CHECK (drawn_at IS NULL OR lottery);

CREATE TABLE round_registrations (
    id           INTEGER PRIMARY KEY,
    round_id     INTEGER NOT NULL REFERENCES rounds (id),
    patient_id   INTEGER NOT NULL REFERENCES patients (id),
    created_at   INTEGER NOT NULL,
    position     INTEGER CHECK (position >= 1),
    selection_at INTEGER,
    CONSTRAINT round_registrations_patient_key UNIQUE (round_id, patient_id),
    CONSTRAINT round_registrations_position_key UNIQUE (round_id, position),
    CHECK ((position IS NULL) = (selection_at IS NULL))
) STRICT;
CREATE INDEX round_registrations_patient_idx ON round_registrations (patient_id);

-- +goose Down
DROP TABLE round_registrations;
ALTER TABLE rounds DROP COLUMN drawn_at;
ALTER TABLE rounds DROP COLUMN seed_commitment;
ALTER TABLE rounds DROP COLUMN seed;
ALTER TABLE rounds DROP COLUMN selection_group;
ALTER TABLE rounds DROP COLUMN selection_minutes;
ALTER TABLE rounds DROP COLUMN registration_closes_at;
ALTER TABLE rounds DROP COLUMN registration_opens_at;
ALTER TABLE rounds DROP COLUMN lottery;
