-- +goose Up
-- Issue 15 (running a clinic): closures of a department or the clinic
-- beside a doctor's suspensions, slots remembering which suspension closed
-- them, editing (active flags, schedule end dates), booking policies and
-- the no-overlap rule of a resource's slots. Constraint names are mapped
-- in booking/constraints.go.

-- A resource's (ordinary) slots never overlap. Round slots are a room's
-- term, which rounds govern. A database that already holds overlapping
-- slots (what this rule forbids from now on) stops the upgrade with a
-- message that says how to find and mend them, not a bare constraint error.
-- +goose StatementBegin
DO $$
BEGIN
    ALTER TABLE slots ADD CONSTRAINT slots_no_overlap EXCLUDE USING gist (
        resource_id WITH =, tstzrange(start_at, end_at) WITH &&
    ) WHERE (round_id IS NULL);
EXCEPTION WHEN exclusion_violation THEN
    -- In the message, not a HINT: drivers print the message only.
    RAISE EXCEPTION USING MESSAGE = 'slotd migration 00014: some doctor has overlapping slots, which slotd now refuses. '
        || 'List them with: SELECT a.id, b.id FROM slots a JOIN slots b ON a.resource_id = b.resource_id AND a.id < b.id '
            || 'AND a.round_id IS NULL AND b.round_id IS NULL AND a.start_at < b.end_at AND b.start_at < a.end_at; '
            || 'move the appointments of one slot of each pair (reschedule), delete that slot, then start slotd again.';
END
$$;
-- +goose StatementEnd

-- A suspension is of a doctor, a department or the whole clinic.
ALTER TABLE suspensions ALTER COLUMN resource_id DROP NOT NULL;
ALTER TABLE suspensions ADD COLUMN scope text NOT NULL DEFAULT 'doctor'
    CONSTRAINT suspensions_scope_check CHECK (scope IN ('doctor', 'department', 'clinic'));
ALTER TABLE suspensions ADD COLUMN department_id bigint REFERENCES departments (id);
ALTER TABLE suspensions ADD COLUMN lifted_at timestamptz;
ALTER TABLE suspensions ADD CONSTRAINT suspensions_scope_target_check CHECK (
    (scope = 'doctor' AND resource_id IS NOT NULL AND department_id IS NULL)
    OR (scope = 'department' AND department_id IS NOT NULL AND resource_id IS NULL)
    OR (scope = 'clinic' AND resource_id IS NULL AND department_id IS NULL));
-- Repeating a closure of a department or the clinic is a no-op too.
CREATE UNIQUE INDEX suspensions_scope_period_key ON suspensions (scope, COALESCE(department_id, 0), from_at, to_at)
    WHERE scope <> 'doctor';
CREATE INDEX suspensions_standing_idx ON suspensions (from_at) WHERE lifted_at IS NULL;

-- The suspension that closed a slot: lifting it reopens exactly these, and
-- PATCH cannot reopen one while it stands.
ALTER TABLE slots ADD COLUMN closed_by bigint REFERENCES suspensions (id);
CREATE INDEX slots_closed_by_idx ON slots (closed_by) WHERE closed_by IS NOT NULL;

ALTER TABLE resources ADD COLUMN active boolean NOT NULL DEFAULT true;
ALTER TABLE patients ADD COLUMN active boolean NOT NULL DEFAULT true;

-- A schedule's end (local day) and its own policy (NULL: the clinic's).
ALTER TABLE schedules ADD COLUMN end_date date;
ALTER TABLE schedules ADD COLUMN max_active integer, ADD COLUMN max_per_day integer,
    ADD COLUMN cancel_cutoff_hours integer, ADD COLUMN no_show_limit integer, ADD COLUMN no_show_block_days integer;

-- The clinic's default policy: one row. The caps are on by default
-- (booking.DefaultPolicy), the cutoff and the no-show rule off.
CREATE TABLE clinic_policy (
    id                  integer PRIMARY KEY CONSTRAINT clinic_policy_one CHECK (id = 1),
    max_active          integer NOT NULL,
    max_per_day         integer NOT NULL,
    cancel_cutoff_hours integer NOT NULL,
    no_show_limit       integer NOT NULL,
    no_show_block_days  integer NOT NULL
);
INSERT INTO clinic_policy VALUES (1, 10, 3, 0, 0, 0);

-- A patient's no-shows, for the no-show rule (a booking's row never
-- enters it). A patient's active appointments, for the caps: it costs
-- every booking an index entry (00012_lean_rows.sql removed a patient
-- index for that), but it bounds the caps' reads by the caps themselves,
-- where appointments_patient_key_key would read a patient's whole history
-- (the SQLite conformance suite ran 1.3-1.4 times slower without it).
CREATE INDEX appointments_patient_noshow_idx ON appointments (patient_id, start_at) WHERE status = 'NO_SHOW';
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED') AND round_id IS NULL;

-- One reconciliation schedule (the job, every --reconcile-interval) whose
-- verdict every instance exports: its findings by kind.
ALTER TABLE reconcile_runs ADD COLUMN kinds jsonb;

-- +goose Down
ALTER TABLE reconcile_runs DROP COLUMN kinds;
DROP INDEX appointments_patient_active_idx;
DROP INDEX appointments_patient_noshow_idx;
DROP TABLE clinic_policy;
ALTER TABLE schedules DROP COLUMN end_date, DROP COLUMN max_active, DROP COLUMN max_per_day,
    DROP COLUMN cancel_cutoff_hours, DROP COLUMN no_show_limit, DROP COLUMN no_show_block_days;
ALTER TABLE patients DROP COLUMN active;
ALTER TABLE resources DROP COLUMN active;
ALTER TABLE slots DROP COLUMN closed_by;
DROP INDEX suspensions_standing_idx;
DROP INDEX suspensions_scope_period_key;
ALTER TABLE suspensions DROP CONSTRAINT suspensions_scope_target_check;
ALTER TABLE suspensions DROP COLUMN lifted_at, DROP COLUMN department_id, DROP COLUMN scope;
ALTER TABLE suspensions ALTER COLUMN resource_id SET NOT NULL;
ALTER TABLE slots DROP CONSTRAINT slots_no_overlap;
