-- +goose Up
-- Cheaper booking rows. A patient's appointments are found
-- through appointments_patient_key_key (patient_id leads it); a patient has
-- few, so ordering them costs nothing, and every insert saves an index
-- entry. SQLite cannot drop a foreign key without rebuilding the table, and
-- its checks are primary-key probes in the page cache: they stay.
DROP INDEX appointments_patient_idx;

-- +goose Down
CREATE INDEX appointments_patient_idx ON appointments (patient_id, id DESC);
