-- +goose Up
-- Mirroring postgres/migrations/00025_refunds.sql: one refund per payment
-- paid back, within what was paid.
CREATE TABLE refunds (
    id             INTEGER PRIMARY KEY,
    payment_id     INTEGER NOT NULL REFERENCES payments (id) CONSTRAINT refunds_payment_key UNIQUE,
    appointment_id INTEGER NOT NULL REFERENCES appointments (id),
    amount_cents   INTEGER NOT NULL,
    paid_cents     INTEGER NOT NULL,
    reason         TEXT NOT NULL CHECK (reason IN ('patient-cancel', 'staff-cancel', 'suspension', 'closure',
                       'erasure', 'late-payment', 'amount-mismatch')),
    state          TEXT NOT NULL CHECK (state IN ('requested', 'succeeded', 'failed')),
    provider_ref   TEXT,
    failure        TEXT,
    attempts       INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    settled_at     INTEGER,
    CONSTRAINT refunds_amount_check CHECK (amount_cents >= 0 AND amount_cents <= paid_cents)
) STRICT;
CREATE INDEX refunds_appointment_idx ON refunds (appointment_id);
CREATE INDEX refunds_open_idx ON refunds (id) WHERE state <> 'succeeded';

ALTER TABLE clinic_policy ADD COLUMN refund_full_hours INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clinic_policy ADD COLUMN refund_partial_percent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clinic_policy ADD COLUMN refund_partial_hours INTEGER NOT NULL DEFAULT 0;
ALTER TABLE schedules ADD COLUMN refund_full_hours INTEGER;
ALTER TABLE schedules ADD COLUMN refund_partial_percent INTEGER;
ALTER TABLE schedules ADD COLUMN refund_partial_hours INTEGER;

-- Reconciliation checks the payments recorded from now on only.
ALTER TABLE clinic_policy ADD COLUMN refunds_after_payment INTEGER NOT NULL DEFAULT 0;
UPDATE clinic_policy SET refunds_after_payment = coalesce((SELECT max(id) FROM payments), 0);

-- +goose Down
ALTER TABLE schedules DROP COLUMN refund_partial_hours;
ALTER TABLE schedules DROP COLUMN refund_partial_percent;
ALTER TABLE schedules DROP COLUMN refund_full_hours;
ALTER TABLE clinic_policy DROP COLUMN refunds_after_payment;
ALTER TABLE clinic_policy DROP COLUMN refund_partial_hours;
ALTER TABLE clinic_policy DROP COLUMN refund_partial_percent;
ALTER TABLE clinic_policy DROP COLUMN refund_full_hours;
DROP TABLE refunds;
