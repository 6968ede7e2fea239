-- +goose Up
-- Standby for leftover doses (booking/standby.go): a standby is a waitlist
-- entry for a site instead of a doctor or department, offered the places
-- left in the site's slots once their check-in window has closed.
ALTER TABLE waitlist_entries ADD COLUMN site_id bigint REFERENCES sites (id);
ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_check;
ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_target_check
    CHECK (num_nonnulls(doctor_id, department_id, site_id) = 1);
-- The leftover scan's read: a site's waiting standbys in opt-in order.
CREATE INDEX waitlist_entries_site_live ON waitlist_entries (site_id, created_at, id)
    WHERE site_id IS NOT NULL AND state IN ('WAITING', 'OFFERED');

-- A site's leftover policy; a site without a row has leftover offers off.
CREATE TABLE site_standby_policy (
    site_id      bigint PRIMARY KEY REFERENCES sites (id),
    enabled      boolean NOT NULL DEFAULT false,
    hold_minutes integer NOT NULL DEFAULT 10 CHECK (hold_minutes BETWEEN 1 AND 120),
    at_once      integer NOT NULL DEFAULT 0 CHECK (at_once BETWEEN 0 AND 100)
);

-- +goose Down
DROP TABLE site_standby_policy;
DROP INDEX waitlist_entries_site_live;
DELETE FROM waitlist_entries WHERE site_id IS NOT NULL;
ALTER TABLE waitlist_entries DROP CONSTRAINT waitlist_entries_target_check;
ALTER TABLE waitlist_entries ADD CONSTRAINT waitlist_entries_check CHECK ((doctor_id IS NULL) <> (department_id IS NULL));
ALTER TABLE waitlist_entries DROP COLUMN site_id;
