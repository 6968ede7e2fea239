-- +goose Up
-- Accounts for the web UI: one-time sign-in codes for patients and staff
-- users with password hashes (see web.Accounts). Mirrors
-- postgres/migrations/00003_accounts.sql.

-- login_codes keeps no phone number and no code: phone_key is an HMAC of the
-- normalized phone and code_hash an HMAC of the code, both keyed by the
-- server, so a copy of this table reveals neither.
CREATE TABLE login_codes (
    id         INTEGER PRIMARY KEY,
    phone_key  TEXT NOT NULL,
    code_hash  TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0 CONSTRAINT login_codes_attempts_check CHECK (attempts >= 0),
    used_at    INTEGER,
    CONSTRAINT login_codes_expiry_check CHECK (expires_at > created_at)
) STRICT;
CREATE INDEX login_codes_phone_idx ON login_codes (phone_key, created_at);

CREATE TABLE staff_users (
    name          TEXT PRIMARY KEY,
    password_hash TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

-- Sign-in looks patients up by phone with separators removed.
CREATE INDEX patients_phone_digits_idx ON patients (
    replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '.', ''), '(', ''), ')', ''));

-- +goose Down
DROP INDEX patients_phone_digits_idx;
DROP TABLE staff_users;
DROP TABLE login_codes;
