-- +goose Up
-- An appointment's audit entry is its domain event (booking.EventOf): the
-- change writes one row where it wrote two (the entry and an outbox row),
-- and the relay reads the log instead of deleting from an outbox.
--
-- Ids are drawn before commit, so the log's ids do not commit in order:
-- a relay reading "after the last id" would skip an entry whose
-- transaction commits late. tx is the writing transaction's id, and the
-- relay reads in windows of commits between two snapshots (event_cursor):
-- an entry is published once its transaction is visible in the window's
-- end and not in its start, so none is skipped; within a window entries go
-- in id order, each appointment's in the order of its changes (a change
-- waits for the previous one's lock). Older entries have no tx: they were
-- events of the outbox, if anything.
ALTER TABLE audit_log ADD COLUMN tx xid8;
ALTER TABLE audit_log ALTER COLUMN tx SET DEFAULT pg_current_xact_id();
CREATE INDEX audit_log_events ON audit_log (tx) WHERE entity = 'appointment';

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
