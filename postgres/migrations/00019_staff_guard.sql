-- +goose Up
-- Staff sign-in that resists guessing, shared by every instance: the
-- failed sign-ins of each staff name (booking.DecideStaffAttempt locks a
-- name with backoff), and a second factor per staff user (RFC 6238 TOTP).

-- name_key is booking.StaffLockKey of the name typed, whether or not it is
-- a user's, so that a lock tells nothing about which names exist. Rows of
-- failures older than a day are deleted as new failures come.
CREATE TABLE staff_signin_failures (
    name_key        text PRIMARY KEY,
    failures        integer NOT NULL CONSTRAINT staff_signin_failures_check CHECK (failures > 0),
    last_failure_at timestamptz NOT NULL,
    locked_until    timestamptz
);
CREATE INDEX staff_signin_failures_last_idx ON staff_signin_failures (last_failure_at);

-- totp_sealed is the second factor's secret sealed with the data key
-- totp_seal_key (package pii, field staff.totp; 0 and NULL: none);
-- totp_last_step the newest time step a code was accepted for, so that a
-- code cannot be used twice.
ALTER TABLE staff_users
    ADD COLUMN totp_sealed    bytea,
    ADD COLUMN totp_seal_key  integer NOT NULL DEFAULT 0,
    ADD COLUMN totp_last_step bigint NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE staff_users DROP COLUMN totp_sealed, DROP COLUMN totp_seal_key, DROP COLUMN totp_last_step;
DROP TABLE staff_signin_failures;
