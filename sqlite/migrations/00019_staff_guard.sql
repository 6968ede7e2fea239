-- +goose Up
-- Staff sign-in that resists guessing: the failed sign-ins of each staff
-- name and a second factor per staff user. Mirrors
-- postgres/migrations/00019_staff_guard.sql.

-- name_key is booking.StaffLockKey of the name typed, whether or not it is
-- a user's, so that a lock tells nothing about which names exist.
CREATE TABLE staff_signin_failures (
    name_key        TEXT PRIMARY KEY,
    failures        INTEGER NOT NULL CONSTRAINT staff_signin_failures_check CHECK (failures > 0),
    last_failure_at INTEGER NOT NULL,
    locked_until    INTEGER
) STRICT;
CREATE INDEX staff_signin_failures_last_idx ON staff_signin_failures (last_failure_at);

-- The second factor's secret, sealed (package pii, field staff.totp), the
-- key it is sealed with (0: none) and the newest time step used.
ALTER TABLE staff_users ADD COLUMN totp_sealed BLOB;
ALTER TABLE staff_users ADD COLUMN totp_seal_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE staff_users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE staff_users DROP COLUMN totp_last_step;
ALTER TABLE staff_users DROP COLUMN totp_seal_key;
ALTER TABLE staff_users DROP COLUMN totp_sealed;
DROP TABLE staff_signin_failures;
