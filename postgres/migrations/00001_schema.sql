-- +goose Up
-- The schema (docs/architecture.md). The constraints are the last line of defence: the
-- code decides with conditional updates, and these refuse whatever a bug
-- would let through. Constraint names are mapped to problem codes in
-- postgres/errors.go: keep them in step.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE departments (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL CONSTRAINT departments_name_key UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- resources are what has slots: doctors now, rooms and stations later.
CREATE TABLE resources (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind          text NOT NULL CHECK (kind IN ('doctor', 'room', 'station')),
    name          text NOT NULL,
    department_id bigint REFERENCES departments (id),
    timezone      text NOT NULL,
    attributes    jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (kind <> 'doctor' OR department_id IS NOT NULL)
);
CREATE INDEX resources_department_idx ON resources (department_id);

CREATE TABLE patients (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL,
    phone      text,
    email      text,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE schedules (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resource_id   bigint NOT NULL REFERENCES resources (id),
    weekdays      smallint NOT NULL CHECK (weekdays BETWEEN 1 AND 127), -- bit d = time.Weekday d
    start_time    text NOT NULL, -- local "HH:MM"
    end_time      text NOT NULL,
    slot_minutes  integer NOT NULL CHECK (slot_minutes BETWEEN 1 AND 1440),
    capacity      integer NOT NULL CHECK (capacity > 0),
    fee_cents     bigint NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
    horizon_days  integer NOT NULL DEFAULT 14 CHECK (horizon_days BETWEEN 1 AND 366),
    opens_at_time text NOT NULL DEFAULT '07:00',
    hold_minutes  integer NOT NULL DEFAULT 15 CHECK (hold_minutes > 0),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX schedules_resource_idx ON schedules (resource_id);

CREATE TABLE slots (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resource_id  bigint NOT NULL REFERENCES resources (id),
    schedule_id  bigint REFERENCES schedules (id),
    start_at     timestamptz NOT NULL,
    end_at       timestamptz NOT NULL,
    capacity     integer NOT NULL CHECK (capacity > 0),
    booked_count integer NOT NULL DEFAULT 0,
    opens_at     timestamptz NOT NULL,
    status       text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'CLOSED')),
    fee_cents    bigint NOT NULL DEFAULT 0 CHECK (fee_cents >= 0),
    hold_seconds integer NOT NULL DEFAULT 900 CHECK (hold_seconds > 0),
    CONSTRAINT slots_booked_within_capacity CHECK (booked_count BETWEEN 0 AND capacity),
    CONSTRAINT slots_resource_start_key UNIQUE (resource_id, start_at),
    CONSTRAINT slots_end_after_start CHECK (end_at > start_at)
);

CREATE TABLE appointments (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slot_id         bigint NOT NULL REFERENCES slots (id),
    patient_id      bigint NOT NULL REFERENCES patients (id),
    status          text NOT NULL CHECK (status IN ('HELD', 'BOOKED', 'CANCELLED', 'EXPIRED', 'COMPLETED', 'NO_SHOW')),
    queue_no        integer NOT NULL CHECK (queue_no >= 1),
    -- start_at/end_at copy the slot's, so that the exclusion constraint can see them.
    start_at        timestamptz NOT NULL,
    end_at          timestamptz NOT NULL,
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     text NOT NULL,
    hold_expires_at timestamptz,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT appointments_patient_key_key UNIQUE (patient_id, idempotency_key),
    CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
        patient_id WITH =, tstzrange(start_at, end_at) WITH &&
    ) WHERE (status IN ('HELD', 'BOOKED')),
    CHECK (status <> 'HELD' OR hold_expires_at IS NOT NULL)
);
CREATE UNIQUE INDEX appointments_slot_patient_active ON appointments (slot_id, patient_id)
    WHERE status IN ('HELD', 'BOOKED');
CREATE UNIQUE INDEX appointments_slot_queue_active ON appointments (slot_id, queue_no)
    WHERE status IN ('HELD', 'BOOKED');
CREATE INDEX appointments_patient_idx ON appointments (patient_id, id DESC);
CREATE INDEX appointments_held_idx ON appointments (hold_expires_at) WHERE status = 'HELD';
-- A slot's holds, for the reclaim that a full slot's booking tries first.
CREATE INDEX appointments_slot_held_idx ON appointments (slot_id, hold_expires_at) WHERE status = 'HELD';

-- +goose Down
DROP TABLE appointments;
DROP TABLE slots;
DROP TABLE schedules;
DROP TABLE patients;
DROP TABLE resources;
DROP TABLE departments;
