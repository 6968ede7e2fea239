-- +goose Up
-- Mirroring postgres/migrations/00048_waitlist_parties.sql: an entry's
-- people when a party waits, a JSON array here (SQLite has no arrays).
ALTER TABLE waitlist_entries ADD COLUMN party_ids TEXT NOT NULL DEFAULT '[]' CONSTRAINT waitlist_entries_party_check CHECK (json_valid(party_ids) AND json_array_length(party_ids) <= 10);

-- +goose Down
ALTER TABLE waitlist_entries DROP COLUMN party_ids;
