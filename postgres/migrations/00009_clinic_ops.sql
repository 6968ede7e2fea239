-- +goose Up
-- Issue 15 (items 4, 5, 7): the audit log, settled refunds, the daily
-- reconciliation's last result, and doctors' staff accounts.

-- audit_log has one row per change, written by the change's own
-- transaction. before/after hold ids and states only, never personal data.
CREATE TABLE audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL,
    actor_role  text NOT NULL,
    actor_id    text NOT NULL,
    entity      text NOT NULL,
    entity_id   bigint NOT NULL,
    action      text NOT NULL,
    before      jsonb,
    after       jsonb,
    -- The patient whose appointment changed, so that a patient's history is
    -- one index range (0: not an appointment).
    patient_id  bigint NOT NULL DEFAULT 0
);
CREATE INDEX audit_log_entity_idx ON audit_log (entity, entity_id, id DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_role, actor_id, id DESC);
CREATE INDEX audit_log_patient_idx ON audit_log (patient_id, id DESC) WHERE patient_id <> 0;
CREATE INDEX audit_log_at_idx ON audit_log (at);

-- A needs-refund payment is settled when staff record the provider's
-- refund reference; reconciliation then stops listing it.
ALTER TABLE payments ADD COLUMN refunded_at timestamptz;
ALTER TABLE payments ADD COLUMN refund_ref text;
ALTER TABLE payments ADD CONSTRAINT payments_refund_check
    CHECK ((refunded_at IS NULL) = (refund_ref IS NULL) AND (refunded_at IS NULL OR outcome = 'needs-refund'));

-- reconcile_runs keeps each scheduled reconciliation's verdict, for the
-- dashboard and the metrics of every instance.
CREATE TABLE reconcile_runs (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    checked_at timestamptz NOT NULL,
    violations integer NOT NULL,
    pending    integer NOT NULL
);

-- A staff account of role doctor sees only that doctor's days.
ALTER TABLE staff_users ADD COLUMN role text NOT NULL DEFAULT 'admin'
    CONSTRAINT staff_users_role_check CHECK (role IN ('admin', 'doctor'));
ALTER TABLE staff_users ADD COLUMN doctor_id bigint REFERENCES resources (id);
ALTER TABLE staff_users ADD CONSTRAINT staff_users_doctor_check CHECK ((role = 'doctor') = (doctor_id IS NOT NULL));

-- +goose Down
ALTER TABLE staff_users DROP CONSTRAINT staff_users_doctor_check;
ALTER TABLE staff_users DROP COLUMN doctor_id;
ALTER TABLE staff_users DROP COLUMN role;
DROP TABLE reconcile_runs;
ALTER TABLE payments DROP CONSTRAINT payments_refund_check;
ALTER TABLE payments DROP COLUMN refund_ref;
ALTER TABLE payments DROP COLUMN refunded_at;
DROP TABLE audit_log;
