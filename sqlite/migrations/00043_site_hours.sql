-- +goose Up
-- Mirroring postgres/migrations/00043_site_hours.sql: a site's weekly
-- opening hours as a JSON array of {day, opens, closes}.
ALTER TABLE sites ADD COLUMN opening_hours TEXT NOT NULL DEFAULT '[]'
    CONSTRAINT sites_opening_hours_check CHECK (json_type(opening_hours) = 'array');

-- +goose Down
ALTER TABLE sites DROP COLUMN opening_hours;
