-- +goose Up
-- Sites: the places of the clinic. Every department belongs to one, and
-- its doctors with it. The clinic's settings (--clinic-name, -address,
-- -phone, -timezone) are flags a migration cannot read: it makes the
-- first site as a placeholder (from_settings) that `slotd serve` fills
-- from them at its next start (FillFirstSite), and everything existing
-- belongs to it.
CREATE TABLE sites (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL CONSTRAINT sites_name_key UNIQUE,
    address       text NOT NULL DEFAULT '',
    lat           double precision CONSTRAINT sites_lat_check CHECK (lat BETWEEN -90 AND 90),
    lon           double precision CONSTRAINT sites_lon_check CHECK (lon BETWEEN -180 AND 180),
    timezone      text NOT NULL,
    phone         text NOT NULL DEFAULT '',
    from_settings boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL,
    CONSTRAINT sites_position_check CHECK ((lat IS NULL) = (lon IS NULL))
);
INSERT INTO sites (name, timezone, from_settings, created_at) VALUES ('slotd clinic', 'Europe/Paris', true, now());
-- Nullable so adding it rewrites no row; every writer sets it, and the
-- existing departments go to the first site.
ALTER TABLE departments ADD COLUMN site_id bigint REFERENCES sites (id);
UPDATE departments SET site_id = (SELECT min(id) FROM sites);
CREATE INDEX departments_site_idx ON departments (site_id, id);

-- +goose Down
DROP INDEX departments_site_idx;
ALTER TABLE departments DROP COLUMN site_id;
DROP TABLE sites;
