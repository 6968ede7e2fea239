-- +goose Up
-- Issue 4 (docs/contracts/lifecycle.md): payments and suspensions, mirroring
-- postgres/migrations/00002_lifecycle.sql with the same constraint names.
-- Timestamps are INTEGER unix microseconds in UTC, like 00001's.

-- payments records every provider confirmation, applied or not: the trade
-- number makes a repeated callback a no-op, and a payment that could not be
-- applied stays here as needing a refund (the reconciliation report).
CREATE TABLE payments (
    id             INTEGER PRIMARY KEY,
    trade_no       TEXT NOT NULL CONSTRAINT payments_trade_no_key UNIQUE,
    appointment_id INTEGER NOT NULL REFERENCES appointments (id),
    amount_cents   INTEGER NOT NULL,
    outcome        TEXT NOT NULL CONSTRAINT payments_outcome_check CHECK (outcome IN ('applied', 'needs-refund')),
    reason         TEXT,
    received_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX payments_appointment_idx ON payments (appointment_id);
-- The refunds to make, newest first, without scanning the applied ones.
CREATE INDEX payments_refund_idx ON payments (id) WHERE outcome = 'needs-refund';

-- suspensions closes a resource's slots starting in [from_at, to_at); the
-- unique period makes repeating a suspension a no-op.
CREATE TABLE suspensions (
    id          INTEGER PRIMARY KEY,
    resource_id INTEGER NOT NULL REFERENCES resources (id),
    from_at     INTEGER NOT NULL,
    to_at       INTEGER NOT NULL,
    reason      TEXT NOT NULL,
    created_at  INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    CONSTRAINT suspensions_period_key UNIQUE (resource_id, from_at, to_at),
    CONSTRAINT suspensions_period_check CHECK (to_at > from_at)
) STRICT;

-- +goose Down
DROP TABLE suspensions;
DROP TABLE payments;
