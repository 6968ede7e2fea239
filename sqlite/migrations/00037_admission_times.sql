-- +goose Up
-- Mirroring postgres/migrations/00037_admission_times.sql: when each
-- queued person was admitted.
ALTER TABLE opening_queue ADD COLUMN admitted_at INTEGER;
UPDATE opening_queue SET admitted_at = (SELECT o.admitted_at FROM openings o WHERE o.id = opening_queue.opening_id)
WHERE position <= (SELECT o.admitted_through FROM openings o WHERE o.id = opening_queue.opening_id);

-- +goose Down
ALTER TABLE opening_queue DROP COLUMN admitted_at;
