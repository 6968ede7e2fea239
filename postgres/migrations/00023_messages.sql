-- +goose Up
-- The delivery record of every message to a patient (booking.Message):
-- its channel, state and the provider's id and reason, never its text nor
-- the phone or address it went to. msg_key is the message's idempotency
-- key, so that a retried attempt updates its message.
CREATE TABLE messages (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    msg_key     text NOT NULL CONSTRAINT messages_key_key UNIQUE,
    patient_id  bigint NOT NULL REFERENCES patients (id),
    kind        text NOT NULL,
    channel     text NOT NULL,
    state       text NOT NULL CONSTRAINT messages_state_check CHECK (state IN ('queued', 'sent', 'delivered', 'failed')),
    provider_id text,
    reason      text NOT NULL DEFAULT '',
    attempts    integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX messages_patient_idx ON messages (patient_id, id);
CREATE UNIQUE INDEX messages_provider_idx ON messages (provider_id) WHERE provider_id IS NOT NULL;

-- +goose Down
DROP TABLE messages;
