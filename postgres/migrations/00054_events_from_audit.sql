-- +goose Up
-- An appointment's audit entry is its domain event (booking.EventOf): the
-- change writes one row where it wrote two (the entry and an outbox row),
-- and the relay reads the log instead of deleting from an outbox.
--
-- Ids are drawn before commit, so the log's ids do not commit in order:
-- a relay reading "after the last id" would skip an entry whose
-- transaction commits late. tx is the writing transaction's id, written
-- once a relay has started (event_cursor has its row: the audit statement
-- reads it) so that a clinic without brokers pays no index entry for it,
-- and the relay reads in windows of commits between two snapshots:
-- an entry is published once its transaction is visible in the window's
-- end and not in its start, so none is skipped; within a window entries go
-- in id order, each appointment's in the order of its changes (a change
-- waits for the previous one's lock). Entries without tx are never
-- published: older ones were events of the outbox, if anything, and later
-- ones were written while no relay had started.
ALTER TABLE audit_log ADD COLUMN tx xid8;
CREATE INDEX audit_log_events ON audit_log (tx) WHERE entity = 'appointment' AND tx IS NOT NULL;

-- The relay's place, one row, written by the one relay holding its lock:
-- every transaction visible in done is published; the window being
-- published is what upto shows and done does not, up to after_id. No row:
-- no relay has started, nothing is published.
CREATE TABLE event_cursor (
    id       int PRIMARY KEY CHECK (id = 1),
    done     pg_snapshot NOT NULL,
    upto     pg_snapshot,
    after_id bigint NOT NULL DEFAULT 0
);

-- outbox_events keeps what an earlier version wrote and did not publish:
-- the relay publishes it first, then reads the log. A consumer dedupes on
-- the id, so the log's next ids start above every id the outbox gave.
SELECT setval(pg_get_serial_sequence('audit_log', 'id'),
    greatest((SELECT max(id) FROM audit_log), (SELECT last_value FROM outbox_events_id_seq), 1));

-- +goose Down
DROP TABLE event_cursor;
DROP INDEX audit_log_events;
ALTER TABLE audit_log DROP COLUMN tx;
