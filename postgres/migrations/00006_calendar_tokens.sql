-- +goose Up
-- A patient's private iCalendar subscription (ical.Tokens). Only the
-- SHA-256 of the token is kept: a copy of this table cannot read anyone's
-- calendar. One token per patient; a new one replaces it, revoking deletes
-- it.
CREATE TABLE calendar_tokens (
    patient_id bigint PRIMARY KEY REFERENCES patients (id),
    token_hash text NOT NULL CONSTRAINT calendar_tokens_token_hash_key UNIQUE,
    created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE calendar_tokens;
