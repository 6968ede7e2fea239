-- +goose Up
-- Mirroring postgres/migrations/00046_staff_sites.sql: the sites a staff
-- account is limited to, none being every site.
CREATE TABLE staff_user_sites (
    name    TEXT    NOT NULL REFERENCES staff_users (name) ON DELETE CASCADE,
    site_id INTEGER NOT NULL REFERENCES sites (id),
    PRIMARY KEY (name, site_id)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE staff_user_sites;
