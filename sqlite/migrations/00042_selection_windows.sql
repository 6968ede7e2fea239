-- +goose Up
-- Mirroring postgres/migrations/00042_selection_windows.sql: a lottery's
-- selection window (0: a turn lasts until the round closes), and when each
-- registrant's turn ends, written by the draw.
ALTER TABLE rounds ADD COLUMN selection_window_minutes INTEGER NOT NULL DEFAULT 0 CHECK (selection_window_minutes >= 0);
ALTER TABLE round_registrations ADD COLUMN selection_ends_at INTEGER CHECK (selection_ends_at IS NULL OR selection_ends_at > selection_at);

-- +goose Down
ALTER TABLE round_registrations DROP COLUMN selection_ends_at;
ALTER TABLE rounds DROP COLUMN selection_window_minutes;
