-- +goose Up
-- Mirroring postgres/migrations/00036_sites.sql: the sites of the clinic,
-- the first one a placeholder (from_settings) that `slotd serve` fills
-- from the --clinic-* flags at its next start, and every department
-- belonging to one.
CREATE TABLE sites (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL CONSTRAINT sites_name_key UNIQUE,
    address       TEXT NOT NULL DEFAULT '',
    lat           REAL CONSTRAINT sites_lat_check CHECK (lat BETWEEN -90 AND 90),
    lon           REAL CONSTRAINT sites_lon_check CHECK (lon BETWEEN -180 AND 180),
    timezone      TEXT NOT NULL,
    phone         TEXT NOT NULL DEFAULT '',
    from_settings INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    CONSTRAINT sites_position_check CHECK ((lat IS NULL) = (lon IS NULL))
) STRICT;
INSERT INTO sites (name, timezone, from_settings, created_at)
VALUES ('slotd clinic', 'Europe/Paris', 1, CAST(unixepoch('subsec') * 1000000 AS INTEGER));
-- SQLite adds a REFERENCES column only with a NULL default; every writer
-- sets it, and the existing departments go to the first site.
ALTER TABLE departments ADD COLUMN site_id INTEGER REFERENCES sites (id);
UPDATE departments SET site_id = (SELECT min(id) FROM sites);
CREATE INDEX departments_site_idx ON departments (site_id, id);

-- +goose Down
DROP INDEX departments_site_idx;
ALTER TABLE departments DROP COLUMN site_id;
DROP TABLE sites;
