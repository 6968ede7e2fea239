-- +goose Up
-- The domain events' outbox (booking.Event); mirrors
-- postgres/migrations/00015_outbox_events.sql. AUTOINCREMENT: an id is
-- never reused after its event was published and deleted, so it stays a
-- stable event id.
CREATE TABLE outbox_events (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    type           TEXT NOT NULL,
    appointment_id INTEGER NOT NULL,
    slot_id        INTEGER NOT NULL,
    patient_id     INTEGER NOT NULL,
    status         TEXT NOT NULL,
    suspension_id  INTEGER,
    hold_expires_at INTEGER,
    occurred_at    INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE outbox_events;
