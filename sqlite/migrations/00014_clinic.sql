-- +goose Up
-- Issue 15, mirroring postgres/migrations/00014_clinic.sql with the same
-- names. SQLite cannot relax NOT NULL in place, so suspensions is rebuilt.

-- SQLite has no exclusion constraint: the writer (one connection, BEGIN
-- IMMEDIATE) checks a resource's slots for overlap in this trigger, under
-- PostgreSQL's constraint name. A slot with the same start is
-- slots_resource_start_key's case (generation's ON CONFLICT DO NOTHING),
-- so it is left to it. Since the resource's slots do not overlap, only two
-- can collide with a new one: one starting inside it, or the last one
-- starting before it, if it ends after the new one starts; both are one
-- seek of slots_resource_start_key (scanning the day before, each row
-- looked up in the table, made generating slots 7 times slower).
-- +goose StatementBegin
CREATE TRIGGER slots_no_overlap_insert
BEFORE INSERT ON slots
WHEN NEW.round_id IS NULL AND (
    EXISTS (SELECT 1 FROM slots o
             WHERE o.resource_id = NEW.resource_id AND o.start_at > NEW.start_at AND o.start_at < NEW.end_at
               AND o.round_id IS NULL)
    OR coalesce((SELECT o.end_at > NEW.start_at FROM slots o
                  WHERE o.resource_id = NEW.resource_id AND o.start_at < NEW.start_at AND o.round_id IS NULL
                  ORDER BY o.start_at DESC LIMIT 1), 0)
)
BEGIN
    SELECT RAISE(ABORT, 'slots_no_overlap');
END;
-- +goose StatementEnd

CREATE TABLE suspensions_new (
    id            INTEGER PRIMARY KEY,
    resource_id   INTEGER REFERENCES resources (id),
    scope         TEXT NOT NULL DEFAULT 'doctor' CONSTRAINT suspensions_scope_check CHECK (scope IN ('doctor', 'department', 'clinic')),
    department_id INTEGER REFERENCES departments (id),
    from_at       INTEGER NOT NULL,
    to_at         INTEGER NOT NULL,
    reason        TEXT NOT NULL,
    created_at    INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    lifted_at     INTEGER,
    CONSTRAINT suspensions_period_key UNIQUE (resource_id, from_at, to_at),
    CONSTRAINT suspensions_period_check CHECK (to_at > from_at),
    CONSTRAINT suspensions_scope_target_check CHECK (
        (scope = 'doctor' AND resource_id IS NOT NULL AND department_id IS NULL)
        OR (scope = 'department' AND department_id IS NOT NULL AND resource_id IS NULL)
        OR (scope = 'clinic' AND resource_id IS NULL AND department_id IS NULL))
) STRICT;
INSERT INTO suspensions_new (id, resource_id, from_at, to_at, reason, created_at)
    SELECT id, resource_id, from_at, to_at, reason, created_at FROM suspensions;
DROP TABLE suspensions;
ALTER TABLE suspensions_new RENAME TO suspensions;
CREATE UNIQUE INDEX suspensions_scope_period_key ON suspensions (scope, coalesce(department_id, 0), from_at, to_at)
    WHERE scope <> 'doctor';
CREATE INDEX suspensions_standing_idx ON suspensions (from_at) WHERE lifted_at IS NULL;

ALTER TABLE slots ADD COLUMN closed_by INTEGER REFERENCES suspensions (id);
CREATE INDEX slots_closed_by_idx ON slots (closed_by) WHERE closed_by IS NOT NULL;

ALTER TABLE resources ADD COLUMN active INTEGER NOT NULL DEFAULT 1;
ALTER TABLE patients ADD COLUMN active INTEGER NOT NULL DEFAULT 1;

ALTER TABLE schedules ADD COLUMN end_date TEXT;
ALTER TABLE schedules ADD COLUMN max_active INTEGER;
ALTER TABLE schedules ADD COLUMN max_per_day INTEGER;
ALTER TABLE schedules ADD COLUMN cancel_cutoff_hours INTEGER;
ALTER TABLE schedules ADD COLUMN no_show_limit INTEGER;
ALTER TABLE schedules ADD COLUMN no_show_block_days INTEGER;

CREATE TABLE clinic_policy (
    id                  INTEGER PRIMARY KEY CONSTRAINT clinic_policy_one CHECK (id = 1),
    max_active          INTEGER NOT NULL,
    max_per_day         INTEGER NOT NULL,
    cancel_cutoff_hours INTEGER NOT NULL,
    no_show_limit       INTEGER NOT NULL,
    no_show_block_days  INTEGER NOT NULL
) STRICT;
INSERT INTO clinic_policy VALUES (1, 10, 3, 0, 0, 0);

-- As in PostgreSQL: a patient's no-shows and active appointments, for the
-- policy's reads.
CREATE INDEX appointments_patient_noshow_idx ON appointments (patient_id, start_at) WHERE status = 'NO_SHOW';
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED') AND round_id IS NULL;

-- As in PostgreSQL: a reconciliation's findings by kind (JSON).
ALTER TABLE reconcile_runs ADD COLUMN kinds TEXT;

-- +goose Down
SELECT 1;
