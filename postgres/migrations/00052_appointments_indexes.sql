-- +goose Up
-- The appointments' index set reviewed against the reads (docs/stores.md,
-- "The appointments' indexes"; postgres/plans_test.go keeps each read a
-- probe). appointments_patient_active_idx (patient_id, start_at) WHERE
-- active AND round_id IS NULL has the very predicate of the exclusion
-- constraint appointments_no_overlap, whose GiST index leads with
-- patient_id: every read of a patient's active ordinary appointments (the
-- caps of sqlPatientLoad, the overlap probe, reschedule, the waitlist's
-- offer) probes that index instead, and a booking writes one index entry
-- fewer. The exclusion constraint, the partial uniques and the key's unique
-- stay: they are the promise (no overlap, one place per patient and slot,
-- one queue number per place, one appointment per key).
DROP INDEX appointments_patient_active_idx;

-- +goose Down
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED') AND round_id IS NULL;
