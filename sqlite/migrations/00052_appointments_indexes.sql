-- +goose Up
-- The appointments' index set reviewed against the reads (docs/stores.md,
-- "The appointments' indexes"). PostgreSQL drops
-- appointments_patient_active_idx, whose reads its exclusion constraint's
-- GiST index serves; SQLite has no such index (the overlap rule is checked
-- by the store's reads under its one writer), so the caps' and the overlap
-- probe's reads still need it here, and every other index has its read:
-- nothing is dropped. The number is kept in step with PostgreSQL's.
SELECT 1;

-- +goose Down
SELECT 1;
