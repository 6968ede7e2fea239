-- +goose Up
-- A lottery's selection window (0: a turn lasts until the round closes), and
-- when each registrant's turn ends, written by the draw with selection_at.
ALTER TABLE rounds
    ADD COLUMN selection_window_minutes integer NOT NULL DEFAULT 0 CHECK (selection_window_minutes >= 0);
ALTER TABLE round_registrations
    ADD COLUMN selection_ends_at timestamptz CHECK (selection_ends_at IS NULL OR selection_ends_at > selection_at);

-- +goose Down
ALTER TABLE round_registrations DROP COLUMN selection_ends_at;
ALTER TABLE rounds DROP COLUMN selection_window_minutes;
