-- +goose Up
-- A patient's private iCalendar subscription (ical.Tokens). Only the
-- SHA-256 of the token is kept: a copy of this table cannot read anyone's
-- calendar. One token per patient; a new one replaces it, revoking deletes
-- it. Mirrors postgres/migrations/00006_calendar_tokens.sql.
CREATE TABLE calendar_tokens (
    patient_id INTEGER PRIMARY KEY REFERENCES patients (id),
    token_hash TEXT NOT NULL CONSTRAINT calendar_tokens_token_hash_key UNIQUE,
    created_at INTEGER NOT NULL
) STRICT;

-- +goose Down
DROP TABLE calendar_tokens;
