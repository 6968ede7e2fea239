-- +goose Up
-- Issue 4 (docs/contracts/lifecycle.md): payments received for holds, and
-- suspensions of a doctor's period. Constraint names are mapped in
-- postgres/errors.go: keep them in step.

-- payments records every provider callback once, by its trade number, with
-- what it did: applied (the hold became BOOKED) or needs-refund (too late,
-- wrong amount, cancelled or paid twice). A repeated callback finds its row.
CREATE TABLE payments (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trade_no       text NOT NULL CONSTRAINT payments_trade_no_key UNIQUE,
    appointment_id bigint NOT NULL REFERENCES appointments (id),
    amount_cents   bigint NOT NULL,
    outcome        text NOT NULL CHECK (outcome IN ('applied', 'needs-refund')),
    reason         text,
    received_at    timestamptz NOT NULL
);
-- The foreign key's other side, so that reading an appointment's payments
-- (and any future delete of appointments) does not scan the table.
CREATE INDEX payments_appointment_idx ON payments (appointment_id);
-- Reconciliation lists the refunds to make, newest first, without scanning
-- the applied payments, which are nearly all of them.
CREATE INDEX payments_refund_idx ON payments (id DESC) WHERE outcome = 'needs-refund';

-- suspensions are staff decisions to close a doctor's slots starting in
-- [from_at, to_at); the unique period makes repeating one a no-op.
CREATE TABLE suspensions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    resource_id bigint NOT NULL REFERENCES resources (id),
    from_at     timestamptz NOT NULL,
    to_at       timestamptz NOT NULL,
    reason      text NOT NULL,
    created_at  timestamptz NOT NULL,
    CONSTRAINT suspensions_period_key UNIQUE (resource_id, from_at, to_at),
    CONSTRAINT suspensions_period_check CHECK (to_at > from_at)
);

-- +goose Down
DROP TABLE suspensions;
DROP TABLE payments;
