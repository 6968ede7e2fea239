-- +goose Up
-- The delivery record of every message to a patient (booking.Message):
-- its channel, state and the provider's id and reason, never its text nor
-- the phone or address it went to; as in
-- postgres/migrations/00023_messages.sql. msg_key is the message's
-- idempotency key, so that a retried attempt updates its message.
CREATE TABLE messages (
    id          INTEGER PRIMARY KEY,
    msg_key     TEXT NOT NULL CONSTRAINT messages_key_key UNIQUE,
    patient_id  INTEGER NOT NULL REFERENCES patients (id),
    kind        TEXT NOT NULL,
    channel     TEXT NOT NULL,
    state       TEXT NOT NULL CONSTRAINT messages_state_check CHECK (state IN ('queued', 'sent', 'delivered', 'failed')),
    provider_id TEXT,
    reason      TEXT NOT NULL DEFAULT '',
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_patient_idx ON messages (patient_id, id);
CREATE UNIQUE INDEX messages_provider_idx ON messages (provider_id) WHERE provider_id IS NOT NULL;

-- +goose Down
DROP TABLE messages;
