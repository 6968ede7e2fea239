-- +goose Up
-- When each queued person was admitted: an admission lasts the token's
-- life from then, and the admitted who have neither booked nor expired
-- hold a place that admission does not give to anyone else.
ALTER TABLE opening_queue ADD COLUMN admitted_at timestamptz;
UPDATE opening_queue q SET admitted_at = o.admitted_at FROM openings o
WHERE o.id = q.opening_id AND q.position <= o.admitted_through;

-- +goose Down
ALTER TABLE opening_queue DROP COLUMN admitted_at;
