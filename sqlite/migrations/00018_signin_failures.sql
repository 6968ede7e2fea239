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

-- +goose Down
DROP TABLE signin_failures;
