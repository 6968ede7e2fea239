-- +goose Up
-- Mirroring postgres/migrations/00022_patient_profile.sql: the birth date
-- and sex a patient gives at sign-up, sealed like the name.
ALTER TABLE patients ADD COLUMN birth_date_sealed BLOB;
ALTER TABLE patients ADD COLUMN sex_sealed BLOB;

-- +goose Down
ALTER TABLE patients DROP COLUMN sex_sealed;
ALTER TABLE patients DROP COLUMN birth_date_sealed;
