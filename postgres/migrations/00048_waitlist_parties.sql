-- +goose Up
-- A household waits together (booking/party.go): an entry's people, the
-- one who joined first, when it waits for more than one place; empty for
-- one person (every entry before this version). The bound is
-- booking.MaxGroup, checked there first; a constant default rewrites no row.
ALTER TABLE waitlist_entries
    ADD COLUMN party_ids bigint[] NOT NULL DEFAULT '{}' CONSTRAINT waitlist_entries_party_check CHECK (cardinality(party_ids) <= 10);

-- +goose Down
ALTER TABLE waitlist_entries DROP COLUMN party_ids;
