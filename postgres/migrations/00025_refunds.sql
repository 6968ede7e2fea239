-- +goose Up
-- Refunds: one per payment paid back (booking.Refund), written in the
-- transaction of the cancel, suspension or payment that decides it, with
-- the job that asks the provider. The unique payment makes two cancels (or
-- a cancel racing anything else) refund once; the CHECK keeps a refund
-- within what was paid. Constraint names are mapped in postgres/errors.go.
CREATE TABLE refunds (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    payment_id     bigint NOT NULL REFERENCES payments (id) CONSTRAINT refunds_payment_key UNIQUE,
    appointment_id bigint NOT NULL REFERENCES appointments (id),
    amount_cents   bigint NOT NULL,
    paid_cents     bigint NOT NULL,
    reason         text NOT NULL CHECK (reason IN ('patient-cancel', 'staff-cancel', 'suspension', 'closure',
                       'erasure', 'late-payment', 'amount-mismatch')),
    state          text NOT NULL CHECK (state IN ('requested', 'succeeded', 'failed')),
    provider_ref   text,
    failure        text,
    attempts       integer NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    settled_at     timestamptz,
    CONSTRAINT refunds_amount_check CHECK (amount_cents >= 0 AND amount_cents <= paid_cents)
);
CREATE INDEX refunds_appointment_idx ON refunds (appointment_id);
-- The staff page lists the refunds waiting or failed, newest first.
CREATE INDEX refunds_open_idx ON refunds (id DESC) WHERE state <> 'succeeded';

-- The clinic's refund rule (booking.Policy): all 0 pays everything back
-- until the start.
ALTER TABLE clinic_policy ADD COLUMN refund_full_hours integer NOT NULL DEFAULT 0,
    ADD COLUMN refund_partial_percent integer NOT NULL DEFAULT 0,
    ADD COLUMN refund_partial_hours integer NOT NULL DEFAULT 0;
-- A schedule's own refund rule (NULL: the clinic's).
ALTER TABLE schedules ADD COLUMN refund_full_hours integer, ADD COLUMN refund_partial_percent integer,
    ADD COLUMN refund_partial_hours integer;

-- Payments recorded from now on are refunded with a record when their
-- place is given back; reconciliation checks only those (the places of
-- older ones may have been cancelled before refunds were recorded).
ALTER TABLE clinic_policy ADD COLUMN refunds_after_payment bigint NOT NULL DEFAULT 0;
UPDATE clinic_policy SET refunds_after_payment = coalesce((SELECT max(id) FROM payments), 0);

-- +goose Down
ALTER TABLE schedules DROP COLUMN refund_full_hours, DROP COLUMN refund_partial_percent,
    DROP COLUMN refund_partial_hours;
ALTER TABLE clinic_policy DROP COLUMN refund_full_hours, DROP COLUMN refund_partial_percent,
    DROP COLUMN refund_partial_hours, DROP COLUMN refunds_after_payment;
DROP TABLE refunds;
