-- +goose Up
-- Mirroring postgres/migrations/00035_dose_series.sql: a dose series (its
-- windows between doses, as JSON) and the series booked, each dose an
-- ordinary appointment linked by series_doses. The links live beside the
-- appointments, not in them, so that the single booking's rows and
-- statements are unchanged.
CREATE TABLE dose_series (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    windows    TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE series_bookings (
    id              INTEGER PRIMARY KEY,
    series_id       INTEGER NOT NULL REFERENCES dose_series (id),
    patient_id      INTEGER NOT NULL REFERENCES patients (id),
    idempotency_key TEXT NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    CONSTRAINT series_bookings_patient_key_key UNIQUE (patient_id, idempotency_key)
);
CREATE TABLE series_doses (
    booking_id     INTEGER NOT NULL REFERENCES series_bookings (id),
    dose_no        INTEGER NOT NULL CHECK (dose_no >= 1),
    appointment_id INTEGER NOT NULL UNIQUE REFERENCES appointments (id),
    PRIMARY KEY (booking_id, dose_no)
);

-- +goose Down
DROP TABLE series_doses;
DROP TABLE series_bookings;
DROP TABLE dose_series;
