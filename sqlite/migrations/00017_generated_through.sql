-- +goose Up
-- Issue 12 item 5, mirroring postgres/migrations/00017_generated_through.sql:
-- the last local day ("YYYY-MM-DD") a schedule's slots were generated through.
ALTER TABLE schedules ADD COLUMN generated_through text;
UPDATE schedules SET generated_through = m.d
FROM (SELECT schedule_id, date(max(start_at) / 1000000, 'unixepoch', '-1 day') AS d
      FROM slots WHERE schedule_id IS NOT NULL GROUP BY schedule_id) AS m
WHERE m.schedule_id = schedules.id;

-- +goose Down
ALTER TABLE schedules DROP COLUMN generated_through;
