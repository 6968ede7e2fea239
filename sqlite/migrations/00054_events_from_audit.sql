-- +goose Up
-- An appointment's audit entry is its domain event (booking.EventOf), as in
-- postgres/migrations/00054_events_from_audit.sql. One connection writes,
-- so ids commit in order and the relay's place is the last id it
-- published. No row: no relay has started, nothing is published.
CREATE TABLE event_cursor (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    after_id INTEGER NOT NULL
) STRICT;

-- outbox_events keeps what an earlier version wrote and did not publish:
-- the relay publishes it first. A consumer dedupes on the id, so the log's
-- next ids start above every id the outbox gave: when the outbox gave
-- higher ones, an entry records the change of source at the highest.
INSERT INTO audit_log (id, at, actor_role, actor_id, entity, entity_id, action)
    SELECT seq, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'system', 'migration', 'events', 0, 'events-from-audit'
    FROM sqlite_sequence WHERE name = 'outbox_events' AND seq > (SELECT coalesce(max(id), 0) FROM audit_log);

-- +goose Down
DROP TABLE event_cursor;
