-- +goose Up
-- Mirroring postgres/migrations/00032_statement.sql: a day's reconciliation
-- against the provider's statement reads payments and refunds by time.
CREATE INDEX payments_received_idx ON payments (received_at);
CREATE INDEX refunds_settled_idx ON refunds (settled_at) WHERE state = 'succeeded';

-- +goose Down
DROP INDEX refunds_settled_idx;
DROP INDEX payments_received_idx;
