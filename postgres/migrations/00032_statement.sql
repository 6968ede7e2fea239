-- +goose Up
-- A day's reconciliation against the payment provider's statement reads
-- the payments received and the refunds paid back that day: by time,
-- without scanning either table.
CREATE INDEX payments_received_idx ON payments (received_at);
CREATE INDEX refunds_settled_idx ON refunds (settled_at) WHERE state = 'succeeded';

-- +goose Down
DROP INDEX refunds_settled_idx;
DROP INDEX payments_received_idx;
