-- +goose Up
-- What a patient gives at sign-up beside the name: the birth date and the
-- sex, personal data sealed like the name (package pii, the same seal_key).
ALTER TABLE patients
    ADD COLUMN birth_date_sealed bytea,
    ADD COLUMN sex_sealed        bytea;

-- +goose Down
ALTER TABLE patients DROP COLUMN birth_date_sealed, DROP COLUMN sex_sealed;
