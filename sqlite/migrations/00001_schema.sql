-- +goose Up
-- The schema in SQLite, mirroring postgres/migrations/00001_schema.sql
-- table for table, with the same constraint and index names so that
-- sqlite/errors.go maps them to the same problem codes.
--
-- Types: ids are INTEGER PRIMARY KEY (the rowid). Timestamps are INTEGER unix
-- MICROseconds in UTC: as precise as PostgreSQL's timestamptz, compared and
-- sorted as plain integers, and free of text parsing on every read.
--
-- Constraint names: SQLite reports a failed CHECK by its name and a failed
-- UNIQUE by its columns, so every CHECK is named (PostgreSQL's automatic name
-- where PostgreSQL has none) and every unique column list is distinct.

CREATE TABLE departments (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL CONSTRAINT departments_name_key UNIQUE,
    created_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
) STRICT;

-- resources are what has slots: doctors now, rooms and stations later.
CREATE TABLE resources (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CONSTRAINT resources_kind_check CHECK (kind IN ('doctor', 'room', 'station')),
    name          TEXT NOT NULL,
    department_id INTEGER REFERENCES departments (id),
    timezone      TEXT NOT NULL,
    attributes    TEXT NOT NULL DEFAULT '{}' CONSTRAINT resources_attributes_check CHECK (json_valid(attributes)),
    created_at    INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    CONSTRAINT resources_check CHECK (kind <> 'doctor' OR department_id IS NOT NULL)
) STRICT;
CREATE INDEX resources_department_idx ON resources (department_id);

CREATE TABLE patients (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    phone      TEXT,
    email      TEXT,
    created_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
) STRICT;

CREATE TABLE schedules (
    id            INTEGER PRIMARY KEY,
    resource_id   INTEGER NOT NULL REFERENCES resources (id),
    weekdays      INTEGER NOT NULL CONSTRAINT schedules_weekdays_check CHECK (weekdays BETWEEN 1 AND 127), -- bit d = time.Weekday d
    start_time    TEXT NOT NULL, -- local "HH:MM"
    end_time      TEXT NOT NULL,
    slot_minutes  INTEGER NOT NULL CONSTRAINT schedules_slot_minutes_check CHECK (slot_minutes BETWEEN 1 AND 1440),
    capacity      INTEGER NOT NULL CONSTRAINT schedules_capacity_check CHECK (capacity > 0),
    fee_cents     INTEGER NOT NULL DEFAULT 0 CONSTRAINT schedules_fee_cents_check CHECK (fee_cents >= 0),
    horizon_days  INTEGER NOT NULL DEFAULT 14 CONSTRAINT schedules_horizon_days_check CHECK (horizon_days BETWEEN 1 AND 366),
    opens_at_time TEXT NOT NULL DEFAULT '07:00',
    hold_minutes  INTEGER NOT NULL DEFAULT 15 CONSTRAINT schedules_hold_minutes_check CHECK (hold_minutes > 0),
    created_at    INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
) STRICT;
CREATE INDEX schedules_resource_idx ON schedules (resource_id);

CREATE TABLE slots (
    id           INTEGER PRIMARY KEY,
    resource_id  INTEGER NOT NULL REFERENCES resources (id),
    schedule_id  INTEGER REFERENCES schedules (id),
    start_at     INTEGER NOT NULL,
    end_at       INTEGER NOT NULL,
    capacity     INTEGER NOT NULL CONSTRAINT slots_capacity_check CHECK (capacity > 0),
    booked_count INTEGER NOT NULL DEFAULT 0,
    opens_at     INTEGER NOT NULL,
    status       TEXT NOT NULL DEFAULT 'OPEN' CONSTRAINT slots_status_check CHECK (status IN ('OPEN', 'CLOSED')),
    fee_cents    INTEGER NOT NULL DEFAULT 0 CONSTRAINT slots_fee_cents_check CHECK (fee_cents >= 0),
    hold_seconds INTEGER NOT NULL DEFAULT 900 CONSTRAINT slots_hold_seconds_check CHECK (hold_seconds > 0),
    CONSTRAINT slots_booked_within_capacity CHECK (booked_count BETWEEN 0 AND capacity),
    CONSTRAINT slots_resource_start_key UNIQUE (resource_id, start_at),
    CONSTRAINT slots_end_after_start CHECK (end_at > start_at)
) STRICT;

CREATE TABLE appointments (
    id              INTEGER PRIMARY KEY,
    slot_id         INTEGER NOT NULL REFERENCES slots (id),
    patient_id      INTEGER NOT NULL REFERENCES patients (id),
    status          TEXT NOT NULL CONSTRAINT appointments_status_check CHECK (status IN ('HELD', 'BOOKED', 'CANCELLED', 'EXPIRED', 'COMPLETED', 'NO_SHOW')),
    queue_no        INTEGER NOT NULL CONSTRAINT appointments_queue_no_check CHECK (queue_no >= 1),
    -- start_at/end_at copy the slot's, so that the overlap check (and the
    -- trigger below) can see them without a join.
    start_at        INTEGER NOT NULL,
    end_at          INTEGER NOT NULL,
    idempotency_key TEXT NOT NULL CONSTRAINT appointments_idempotency_key_check CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     TEXT NOT NULL,
    hold_expires_at INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    CONSTRAINT appointments_patient_key_key UNIQUE (patient_id, idempotency_key),
    CONSTRAINT appointments_check CHECK (status <> 'HELD' OR hold_expires_at IS NOT NULL)
) STRICT;
CREATE UNIQUE INDEX appointments_slot_patient_active ON appointments (slot_id, patient_id)
    WHERE status IN ('HELD', 'BOOKED');
CREATE UNIQUE INDEX appointments_slot_queue_active ON appointments (slot_id, queue_no)
    WHERE status IN ('HELD', 'BOOKED');
CREATE INDEX appointments_patient_idx ON appointments (patient_id, id DESC);
CREATE INDEX appointments_held_idx ON appointments (hold_expires_at) WHERE status = 'HELD';
-- A slot's holds, for the reclaim that a full slot's booking tries first.
CREATE INDEX appointments_slot_held_idx ON appointments (slot_id, hold_expires_at) WHERE status = 'HELD';

-- SQLite has no exclusion constraint. Overlap (PostgreSQL's
-- appointments_no_overlap) is DECIDED inside Book's write transaction, which
-- is serialized: one writer connection, BEGIN IMMEDIATE, so nothing can slip
-- in between the check and the insert. These triggers are only the last line
-- of defence, standing in for the exclusion constraint: they refuse an active
-- appointment that overlaps another active one of the same patient in another
-- slot (the same slot is appointments_slot_patient_active's case), under
-- the same constraint name, so errors.go maps it like PostgreSQL's.
-- +goose StatementBegin
CREATE TRIGGER appointments_no_overlap_insert
BEFORE INSERT ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED')
       AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER appointments_no_overlap_update
BEFORE UPDATE OF status, start_at, end_at, patient_id ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED')
       AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER appointments_no_overlap_update;
DROP TRIGGER appointments_no_overlap_insert;
DROP TABLE appointments;
DROP TABLE slots;
DROP TABLE schedules;
DROP TABLE patients;
DROP TABLE resources;
DROP TABLE departments;
