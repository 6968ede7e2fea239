-- +goose Up
-- Rounds (docs/contracts/rounds.md): room-selection style
-- allocation, mirroring postgres/migrations/00004_rounds.sql with the same
-- table, column, constraint, index and trigger names. Timestamps are INTEGER
-- unix microseconds in UTC, like 00001's; rooms are resources of kind 'room'
-- with their attributes as JSON text in resources.attributes.

CREATE TABLE rounds (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    opens_at   INTEGER NOT NULL,
    closes_at  INTEGER NOT NULL,
    term_start INTEGER NOT NULL,
    term_end   INTEGER NOT NULL,
    quota      INTEGER NOT NULL DEFAULT 1 CONSTRAINT rounds_quota_check CHECK (quota >= 1),
    state      TEXT NOT NULL DEFAULT 'DRAFT' CONSTRAINT rounds_state_check CHECK (state IN ('DRAFT', 'OPEN', 'CLOSED')),
    created_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    CONSTRAINT rounds_closes_after_opens CHECK (closes_at > opens_at),
    CONSTRAINT rounds_term_check CHECK (term_end > term_start)
) STRICT;

-- A round's slots. A room appears once per round: its slots of one round
-- share the term, so slots_resource_start_key already refuses a second.
ALTER TABLE slots ADD COLUMN round_id INTEGER REFERENCES rounds (id);
CREATE INDEX slots_round_idx ON slots (round_id) WHERE round_id IS NOT NULL;

-- appointments.round_id copies the slot's, so that the overlap triggers
-- and the quota trigger can see it without a join. Round allocations are
-- governed by the round's quota, not by the overlap rule: a student holds a
-- room for the whole term, which every other appointment overlaps.
ALTER TABLE appointments ADD COLUMN round_id INTEGER REFERENCES rounds (id);
CREATE INDEX appointments_round_active_idx ON appointments (round_id, patient_id)
    WHERE round_id IS NOT NULL AND status IN ('HELD', 'BOOKED');

-- The overlap triggers of 00001 (SQLite's stand-in for the exclusion
-- constraint), with PostgreSQL's new WHERE: round allocations take no part.
DROP TRIGGER appointments_no_overlap_insert;
DROP TRIGGER appointments_no_overlap_update;
-- +goose StatementBegin
CREATE TRIGGER appointments_no_overlap_insert
BEFORE INSERT ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER appointments_no_overlap_update
BEFORE UPDATE OF status, start_at, end_at, patient_id, round_id ON appointments
WHEN NEW.status IN ('HELD', 'BOOKED') AND NEW.round_id IS NULL AND EXISTS (
    SELECT 1 FROM appointments o
     WHERE o.patient_id = NEW.patient_id AND o.slot_id <> NEW.slot_id AND o.status IN ('HELD', 'BOOKED')
       AND o.round_id IS NULL AND o.start_at < NEW.end_at AND o.end_at > NEW.start_at
)
BEGIN
    SELECT RAISE(ABORT, 'appointments_no_overlap');
END;
-- +goose StatementEnd

-- round_quotas counts each student's active allocations in a round. Book
-- increments it in the transaction that allocates; the trigger below
-- decrements it when an allocation leaves an active state. The CHECK is the
-- last line of defence for the quota.
CREATE TABLE round_quotas (
    round_id   INTEGER NOT NULL REFERENCES rounds (id),
    patient_id INTEGER NOT NULL REFERENCES patients (id),
    used       INTEGER NOT NULL,
    quota      INTEGER NOT NULL,
    PRIMARY KEY (round_id, patient_id),
    CONSTRAINT round_quotas_within_quota CHECK (used BETWEEN 0 AND quota)
) STRICT, WITHOUT ROWID;

-- Every transition out of an active state (cancel, expiry, reclaim,
-- suspension, completion, no-show) gives the quota back, exactly once: the
-- trigger fires once per row that the conditional update actually moved.
-- One place for it, rather than one in each of those statements, so that a
-- new transition cannot forget it. The WHEN clause costs ordinary
-- appointments one comparison.
-- +goose StatementBegin
CREATE TRIGGER appointments_round_quota_release
AFTER UPDATE OF status ON appointments
WHEN OLD.round_id IS NOT NULL AND OLD.status IN ('HELD', 'BOOKED') AND NEW.status NOT IN ('HELD', 'BOOKED')
BEGIN
    UPDATE round_quotas SET used = used - 1
     WHERE round_id = NEW.round_id AND patient_id = NEW.patient_id;
END;
-- +goose StatementEnd

-- round_applications are the asynchronous applications (Prefer:
-- respond-async), decided in arrival order (id) by DecidePending.
CREATE TABLE round_applications (
    id              INTEGER PRIMARY KEY,
    round_id        INTEGER NOT NULL REFERENCES rounds (id),
    patient_id      INTEGER NOT NULL REFERENCES patients (id),
    slot_id         INTEGER NOT NULL REFERENCES slots (id),
    idempotency_key TEXT NOT NULL CONSTRAINT round_applications_idempotency_key_check CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'PENDING' CONSTRAINT round_applications_status_check CHECK (status IN ('PENDING', 'ALLOCATED', 'REJECTED')),
    reason          TEXT,
    appointment_id  INTEGER REFERENCES appointments (id),
    created_at      INTEGER NOT NULL,
    decided_at      INTEGER,
    CONSTRAINT round_applications_patient_key_key UNIQUE (patient_id, idempotency_key),
    CONSTRAINT round_applications_check CHECK (status <> 'ALLOCATED' OR appointment_id IS NOT NULL)
) STRICT;
-- The pending queue, oldest first.
CREATE INDEX round_applications_queue_idx ON round_applications (round_id, status, id);

-- 00001 gained appointments_slot_held_idx after some databases had been
-- made from it; those get it here (a no-op for the others).
CREATE INDEX IF NOT EXISTS appointments_slot_held_idx ON appointments (slot_id, hold_expires_at) WHERE status = 'HELD';

-- +goose Down
DROP INDEX round_applications_queue_idx;
DROP TABLE round_applications;
DROP TRIGGER appointments_round_quota_release;
DROP TABLE round_quotas;
DROP TRIGGER appointments_no_overlap_update;
DROP TRIGGER appointments_no_overlap_insert;
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
DROP INDEX appointments_round_active_idx;
ALTER TABLE appointments DROP COLUMN round_id;
DROP INDEX slots_round_idx;
ALTER TABLE slots DROP COLUMN round_id;
DROP TABLE rounds;
