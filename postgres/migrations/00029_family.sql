-- +goose Up
-- The people an account manages (a child, a parent) are patients too,
-- linked to the account's patient; an account's own row has no manager
-- (existing patients are their own accounts, unchanged). Adding nullable
-- columns and a constant default rewrites no row. The cap of people per
-- account is the clinic's policy.
ALTER TABLE patients
    ADD COLUMN manager_id bigint REFERENCES patients (id),
    ADD COLUMN relation   text NOT NULL DEFAULT 'self'
        CONSTRAINT patients_relation_check CHECK (relation IN ('self', 'child', 'parent', 'spouse', 'other')),
    ADD COLUMN consent_at timestamptz;
CREATE INDEX patients_manager_idx ON patients (manager_id, id) WHERE manager_id IS NOT NULL;
ALTER TABLE clinic_policy ADD COLUMN max_people integer NOT NULL DEFAULT 5;

-- +goose Down
ALTER TABLE clinic_policy DROP COLUMN max_people;
DROP INDEX patients_manager_idx;
ALTER TABLE patients DROP COLUMN consent_at, DROP COLUMN relation, DROP COLUMN manager_id;
