-- +goose Up
-- Accounts for the web UI: one-time sign-in codes for patients and staff
-- users with password hashes (see web.Accounts).

-- login_codes keeps no phone number and no code: phone_key is an HMAC of the
-- normalized phone and code_hash an HMAC of the code, both keyed by the
-- server, so a copy of this table reveals neither.
CREATE TABLE login_codes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    phone_key  text NOT NULL,
    code_hash  text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    attempts   integer NOT NULL DEFAULT 0 CONSTRAINT login_codes_attempts_check CHECK (attempts >= 0),
    used_at    timestamptz,
    CONSTRAINT login_codes_expiry_check CHECK (expires_at > created_at)
);
CREATE INDEX login_codes_phone_idx ON login_codes (phone_key, created_at);

CREATE TABLE staff_users (
    name          text PRIMARY KEY,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);

-- Sign-in looks patients up by phone with separators removed.
CREATE INDEX patients_phone_digits_idx ON patients (
    (replace(replace(replace(replace(replace(phone, ' ', ''), '-', ''), '.', ''), '(', ''), ')', '')));

-- +goose Down
DROP INDEX patients_phone_digits_idx;
DROP TABLE staff_users;
DROP TABLE login_codes;
