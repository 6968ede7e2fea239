-- +goose Up
-- Lottery rounds (docs/clinic.md, "Lottery rounds"): a round may replace
-- first come, first served by a draw among people who registered during a
-- registration window. The seed is written when the round is created and
-- served only once drawn_at is set; its SHA-256 commitment is public from
-- the start. The CHECK keeps a lottery round's settings whole.
ALTER TABLE rounds
    ADD COLUMN lottery                boolean NOT NULL DEFAULT false,
    ADD COLUMN registration_opens_at  timestamptz,
    ADD COLUMN registration_closes_at timestamptz,
    ADD COLUMN selection_minutes      integer NOT NULL DEFAULT 0 CHECK (selection_minutes >= 0),
    ADD COLUMN selection_group        integer NOT NULL DEFAULT 1 CHECK (selection_group >= 1),
    ADD COLUMN seed                   bytea,
    ADD COLUMN seed_commitment        text,
    ADD COLUMN drawn_at               timestamptz,
    ADD CONSTRAINT rounds_lottery_check CHECK (NOT lottery OR (registration_opens_at IS NOT NULL
        AND registration_closes_at > registration_opens_at AND registration_closes_at <= opens_at
        AND length(seed) = 32 AND seed_commitment IS NOT NULL)),
    ADD CONSTRAINT rounds_drawn_check CHECK (drawn_at IS NULL OR lottery);

-- One registration per person and round (the unique key makes a retry, or
-- a race of retries, find the first); position and selection_at are
-- written by the draw, once.
CREATE TABLE round_registrations (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    round_id     bigint NOT NULL REFERENCES rounds (id),
    patient_id   bigint NOT NULL REFERENCES patients (id),
    created_at   timestamptz NOT NULL,
    position     integer CHECK (position >= 1),
    selection_at timestamptz,
    CONSTRAINT round_registrations_patient_key UNIQUE (round_id, patient_id),
    CONSTRAINT round_registrations_position_key UNIQUE (round_id, position),
    CHECK ((position IS NULL) = (selection_at IS NULL))
);
CREATE INDEX round_registrations_patient_idx ON round_registrations (patient_id);

-- +goose Down
DROP TABLE round_registrations;
ALTER TABLE rounds DROP CONSTRAINT rounds_drawn_check, DROP CONSTRAINT rounds_lottery_check,
    DROP COLUMN drawn_at, DROP COLUMN seed_commitment, DROP COLUMN seed, DROP COLUMN selection_group,
    DROP COLUMN selection_minutes, DROP COLUMN registration_closes_at, DROP COLUMN registration_opens_at,
    DROP COLUMN lottery;
