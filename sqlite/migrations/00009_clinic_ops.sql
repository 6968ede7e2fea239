-- +goose Up
-- Issue 15 (items 4, 5, 7), mirroring postgres/migrations/00009_clinic_ops.sql.

CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    actor_role  TEXT NOT NULL,
    actor_id    TEXT NOT NULL,
    entity      TEXT NOT NULL,
    entity_id   INTEGER NOT NULL,
    action      TEXT NOT NULL,
    before      TEXT,
    after       TEXT,
    patient_id  INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX audit_log_entity_idx ON audit_log (entity, entity_id, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_role, actor_id, id DESC);
CREATE INDEX audit_log_patient_idx ON audit_log (patient_id, id DESC) WHERE patient_id <> 0;
CREATE INDEX audit_log_at_idx ON audit_log (at);

-- SQLite cannot add a CHECK to an existing table: the writer keeps
-- refunded_at and refund_ref set together, on needs-refund rows only.
ALTER TABLE payments ADD COLUMN refunded_at INTEGER;
ALTER TABLE payments ADD COLUMN refund_ref TEXT;

CREATE TABLE reconcile_runs (
    id         INTEGER PRIMARY KEY,
    checked_at INTEGER NOT NULL,
    violations INTEGER NOT NULL,
    pending    INTEGER NOT NULL
) STRICT;

ALTER TABLE staff_users ADD COLUMN role TEXT NOT NULL DEFAULT 'admin'
    CONSTRAINT staff_users_role_check CHECK (role IN ('admin', 'doctor'));
ALTER TABLE staff_users ADD COLUMN doctor_id INTEGER REFERENCES resources (id);

-- +goose Down
ALTER TABLE staff_users DROP COLUMN doctor_id;
ALTER TABLE staff_users DROP COLUMN role;
DROP TABLE reconcile_runs;
ALTER TABLE payments DROP COLUMN refund_ref;
ALTER TABLE payments DROP COLUMN refunded_at;
DROP TABLE audit_log;
