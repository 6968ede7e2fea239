-- +goose Up
-- Wrong sign-in codes counted per day (booking.SigninDay: days since the
-- Unix epoch, UTC), per phone (scope is the phone's keyed hash, as in
-- login_codes: never the phone) and for the whole clinic (scope 'clinic'),
-- so that every instance on this database shares the daily limits; as in
-- postgres/migrations/00018_signin_failures.sql.
CREATE TABLE signin_failures (
    scope    TEXT NOT NULL,
    day      INTEGER NOT NULL,
    failures INTEGER NOT NULL CONSTRAINT signin_failures_failures_check CHECK (failures >= 0),
    PRIMARY KEY (scope, day)
) STRICT;
CREATE INDEX signin_failures_day_idx ON signin_failures (day);

-- A code is now recorded for a phone nobody has too (so that the limits
-- per phone answer alike): such a phone is never asked for again, so each
-- new code deletes the two oldest codes a day old of any phone, found by
-- this index.
CREATE INDEX login_codes_created_idx ON login_codes (created_at);

-- +goose Down
DROP INDEX login_codes_created_idx;
DROP TABLE signin_failures;
