-- +goose Up
-- Mirroring postgres/migrations/00029_family.sql: the people an account
-- manages (a child, a parent) are patients too, linked to the account's
-- patient; an account's own row has no manager. The cap of people per
-- account is the clinic's policy.
ALTER TABLE patients ADD COLUMN manager_id INTEGER REFERENCES patients (id);
ALTER TABLE patients ADD COLUMN relation TEXT NOT NULL DEFAULT 'self'
    CHECK (relation IN ('self', 'child', 'parent', 'spouse', 'other'));
ALTER TABLE patients ADD COLUMN consent_at INTEGER;
CREATE INDEX patients_manager_idx ON patients (manager_id, id) WHERE manager_id IS NOT NULL;
ALTER TABLE clinic_policy ADD COLUMN max_people INTEGER NOT NULL DEFAULT 5;

-- +goose Down
ALTER TABLE clinic_policy DROP COLUMN max_people;
DROP INDEX patients_manager_idx;
ALTER TABLE patients DROP COLUMN consent_at;
ALTER TABLE patients DROP COLUMN relation;
ALTER TABLE patients DROP COLUMN manager_id;
