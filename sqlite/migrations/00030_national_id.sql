-- +goose Up
-- Mirroring postgres/migrations/00030_national_id.sql: the national ID
-- number of real-name registration, sealed like the phone and unique
-- through its keyed hash (a UNIQUE index lets the NULLs of patients who
-- gave none be), and the policy that asks for it.
ALTER TABLE patients ADD COLUMN national_id_sealed BLOB;
ALTER TABLE patients ADD COLUMN national_id_index BLOB;
CREATE UNIQUE INDEX patients_national_id_index_key ON patients (national_id_index);
ALTER TABLE clinic_policy ADD COLUMN require_national_id INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE clinic_policy DROP COLUMN require_national_id;
DROP INDEX patients_national_id_index_key;
ALTER TABLE patients DROP COLUMN national_id_index;
ALTER TABLE patients DROP COLUMN national_id_sealed;
