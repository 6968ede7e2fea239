-- +goose Up
-- Issue 11.4, mirroring postgres/migrations/00005_payment_conflicts.sql: a
-- callback that reuses a recorded trade number for another appointment or
-- amount is refused (payment-conflict) and kept here for reconciliation.
-- No foreign key: the appointment it names may not exist. A repeated
-- conflicting callback is kept once.
CREATE TABLE payment_conflicts (
    id             INTEGER PRIMARY KEY,
    trade_no       TEXT NOT NULL,
    appointment_id INTEGER NOT NULL,
    amount_cents   INTEGER NOT NULL,
    received_at    INTEGER NOT NULL,
    CONSTRAINT payment_conflicts_key UNIQUE (trade_no, appointment_id, amount_cents)
) STRICT;

-- +goose Down
DROP TABLE payment_conflicts;
