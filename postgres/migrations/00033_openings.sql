-- +goose Up
-- Waiting rooms (docs/clinic.md, "Waiting rooms"): an opening is announced
-- for the slots of a schedule that open at one instant; the booking
-- transaction finds it with the schedule's policy, through the unique key
-- (schedule_id, opens_at). The seed orders the pre-queue at the opening and
-- is served only once drawn_at is set; its SHA-256 commitment is public.
CREATE TABLE openings (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule_id      bigint NOT NULL REFERENCES schedules (id),
    opens_at         timestamptz NOT NULL,
    seed             bytea NOT NULL CHECK (length(seed) = 32),
    seed_commitment  text NOT NULL,
    created_at       timestamptz NOT NULL,
    drawn_at         timestamptz,
    admitted_through integer NOT NULL DEFAULT 0 CHECK (admitted_through >= 0),
    admitted_at      timestamptz,
    CONSTRAINT openings_schedule_key UNIQUE (schedule_id, opens_at)
);

-- One entry per person and opening (a retry, or a race of them, finds the
-- first: joining again never improves a place); position is written by the
-- draw for the pre-queue, at once for later arrivals.
CREATE TABLE opening_queue (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    opening_id bigint NOT NULL REFERENCES openings (id),
    patient_id bigint NOT NULL REFERENCES patients (id),
    joined_at  timestamptz NOT NULL,
    position   integer CHECK (position >= 1),
    CONSTRAINT opening_queue_patient_key UNIQUE (opening_id, patient_id),
    CONSTRAINT opening_queue_position_key UNIQUE (opening_id, position)
);
CREATE INDEX opening_queue_patient_idx ON opening_queue (patient_id);

-- +goose Down
DROP TABLE opening_queue;
DROP TABLE openings;
