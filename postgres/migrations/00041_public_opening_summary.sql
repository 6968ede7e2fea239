-- +goose Up
-- The clinic's choice to publish the summary of each opening's fairness
-- report (GET /api/openings/{id}/summary): off by default. A constant
-- default rewrites no row.
ALTER TABLE clinic_policy ADD COLUMN public_opening_summary boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE clinic_policy DROP COLUMN public_opening_summary;
