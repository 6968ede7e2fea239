-- +goose Up
-- Mirroring postgres/migrations/00021_demo_marker.sql: the clinic's
-- settings by name, where `serve --demo` writes demo=true.
CREATE TABLE clinic_settings (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000000 AS INTEGER))
) STRICT;

-- +goose Down
DROP TABLE clinic_settings;
