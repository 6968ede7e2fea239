-- +goose Up
-- Indexes for reads that must stay probes whatever the statistics
-- (postgres/plans_test.go).
--
-- A database migrated by an earlier build of this version ran a 00052 that
-- dropped appointments_patient_active_idx (see 00052): it is built again;
-- every other database already has it.
CREATE INDEX IF NOT EXISTS appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED') AND round_id IS NULL;
-- A booking's reclaim leaves a stale hold alone when it is a waitlist
-- offer: one probe by the hold, where the only index to hand was a scan
-- of every live entry of the waiting list. Only offers are indexed.
CREATE INDEX waitlist_entries_offer ON waitlist_entries (appointment_id) WHERE state = 'OFFERED';

-- +goose Down
DROP INDEX waitlist_entries_offer;
