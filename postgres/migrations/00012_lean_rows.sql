-- +goose Up
-- Cheaper booking rows. A booking inserts its appointments
-- under the lock of their slot row, from that very row (the conditional
-- update's RETURNING): the slot exists and the round is the slot's, so the
-- foreign-key checks against slots and rounds buy nothing, per row, on the
-- hottest insert. Slots and rounds are never deleted. The patient's key
-- stays: nothing else proves that the patient exists. The CHECKs, the
-- partial uniques and the exclusion constraint stay: they are
-- the last line of defence.
ALTER TABLE appointments DROP CONSTRAINT appointments_slot_id_fkey;
ALTER TABLE appointments DROP CONSTRAINT appointments_round_id_fkey;
ALTER TABLE round_quotas DROP CONSTRAINT round_quotas_round_id_fkey;
-- A patient's appointments are found through appointments_patient_key_key
-- (patient_id leads it); a patient has few, so ordering them costs nothing.
DROP INDEX appointments_patient_idx;

-- +goose Down
CREATE INDEX appointments_patient_idx ON appointments (patient_id, id DESC);
ALTER TABLE round_quotas ADD CONSTRAINT round_quotas_round_id_fkey FOREIGN KEY (round_id) REFERENCES rounds (id);
ALTER TABLE appointments ADD CONSTRAINT appointments_round_id_fkey FOREIGN KEY (round_id) REFERENCES rounds (id);
ALTER TABLE appointments ADD CONSTRAINT appointments_slot_id_fkey FOREIGN KEY (slot_id) REFERENCES slots (id);
