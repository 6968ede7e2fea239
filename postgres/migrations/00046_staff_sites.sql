-- +goose Up
-- The sites a staff account is limited to (booking/staffsites.go): none is
-- every site, as before, so existing accounts keep working unchanged.
CREATE TABLE staff_user_sites (
    name    text   NOT NULL REFERENCES staff_users (name) ON DELETE CASCADE,
    site_id bigint NOT NULL REFERENCES sites (id),
    PRIMARY KEY (name, site_id)
);

-- +goose Down
DROP TABLE staff_user_sites;
