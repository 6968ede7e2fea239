-- +goose Up
-- A site's weekly opening hours (booking.OpeningHours): a bounded list of
-- {day, opens, closes} the Service validates; shown, not enforced. The
-- default adds the column without rewriting a row.
ALTER TABLE sites ADD COLUMN opening_hours jsonb NOT NULL DEFAULT '[]'
    CONSTRAINT sites_opening_hours_check CHECK (jsonb_typeof(opening_hours) = 'array');

-- +goose Down
ALTER TABLE sites DROP COLUMN opening_hours;
