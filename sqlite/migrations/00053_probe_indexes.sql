-- +goose Up
-- A booking's reclaim leaves a stale hold alone when it is a waitlist
-- offer: one probe by the hold instead of a scan of the waiting list. Only
-- offers are indexed. (PostgreSQL also builds appointments_patient_active_idx
-- again where an earlier build of this version had dropped it; SQLite
-- always kept it.)
CREATE INDEX waitlist_entries_offer ON waitlist_entries (appointment_id) WHERE state = 'OFFERED';

-- +goose Down
DROP INDEX waitlist_entries_offer;
