-- +goose Up
-- A dose series (its windows between doses, as JSON) and the series
-- booked, each dose an ordinary appointment linked by series_doses. The
-- links live beside the appointments, not in them, so that the single
-- booking's rows and statements are unchanged.
CREATE TABLE dose_series (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL CONSTRAINT dose_series_name_check CHECK (length(name) BETWEEN 1 AND 100),
    windows    jsonb NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE TABLE series_bookings (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    series_id       bigint NOT NULL REFERENCES dose_series (id),
    patient_id      bigint NOT NULL REFERENCES patients (id),
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     text NOT NULL,
    created_at      timestamptz NOT NULL,
    CONSTRAINT series_bookings_patient_key_key UNIQUE (patient_id, idempotency_key)
);
CREATE TABLE series_doses (
    booking_id     bigint NOT NULL REFERENCES series_bookings (id),
    dose_no        integer NOT NULL CHECK (dose_no >= 1),
    appointment_id bigint NOT NULL UNIQUE REFERENCES appointments (id),
    PRIMARY KEY (booking_id, dose_no)
);

-- +goose Down
DROP TABLE series_doses;
DROP TABLE series_bookings;
DROP TABLE dose_series;
