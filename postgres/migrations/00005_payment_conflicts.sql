-- +goose Up
-- Issue 11.4: a callback that reuses a recorded trade number for another
-- appointment or amount is refused (payment-conflict), never answered as
-- the recorded payment, and kept here for reconciliation. No foreign key:
-- the appointment it names may not exist. A repeated conflicting callback
-- is kept once.
CREATE TABLE payment_conflicts (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trade_no       text NOT NULL,
    appointment_id bigint NOT NULL,
    amount_cents   bigint NOT NULL,
    received_at    timestamptz NOT NULL,
    CONSTRAINT payment_conflicts_key UNIQUE (trade_no, appointment_id, amount_cents)
);

-- +goose Down
DROP TABLE payment_conflicts;
