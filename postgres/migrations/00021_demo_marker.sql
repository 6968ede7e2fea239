-- +goose Up
-- The clinic's settings by name. `serve --demo` writes demo=true when it
-- claims an empty database, and refuses any database without that row
-- that holds data (booking.DecideDemo): the demo's well-known staff
-- password and printed tokens never reach a real clinic's database.
CREATE TABLE clinic_settings (
    name       text PRIMARY KEY,
    value      text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE clinic_settings;
