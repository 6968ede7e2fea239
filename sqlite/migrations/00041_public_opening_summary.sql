-- +goose Up
-- Mirroring postgres/migrations/00041_public_opening_summary.sql: the
-- policy that publishes the summary of an opening's fairness report.
ALTER TABLE clinic_policy ADD COLUMN public_opening_summary INTEGER NOT NULL DEFAULT 0
    CONSTRAINT clinic_policy_public_opening_summary_check CHECK (public_opening_summary IN (0, 1));

-- +goose Down
ALTER TABLE clinic_policy DROP COLUMN public_opening_summary;
