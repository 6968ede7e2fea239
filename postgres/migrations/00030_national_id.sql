-- +goose Up
-- Real-name registration: a clinic whose policy requires it asks every
-- patient who signs up and every person an account adds for a national ID
-- number, sealed like the phone (package pii, the same seal_key) and unique
-- through its keyed hash. Nullable columns and a constant default rewrite
-- no row; the unique index skips the NULLs of patients who gave none.
ALTER TABLE patients
    ADD COLUMN national_id_sealed bytea,
    ADD COLUMN national_id_index  bytea;
CREATE UNIQUE INDEX patients_national_id_index_key ON patients (national_id_index) WHERE national_id_index IS NOT NULL;
ALTER TABLE clinic_policy ADD COLUMN require_national_id boolean NOT NULL DEFAULT false;

-- A sign-up code goes to an address no patient has yet: its delivery
-- record (queued, sent, delivered, failed, and the provider's report) has
-- no patient. Dropping NOT NULL rewrites no row.
ALTER TABLE messages ALTER COLUMN patient_id DROP NOT NULL;

-- +goose Down
DELETE FROM messages WHERE patient_id IS NULL;
ALTER TABLE messages ALTER COLUMN patient_id SET NOT NULL;
ALTER TABLE clinic_policy DROP COLUMN require_national_id;
DROP INDEX patients_national_id_index_key;
ALTER TABLE patients DROP COLUMN national_id_index, DROP COLUMN national_id_sealed;
