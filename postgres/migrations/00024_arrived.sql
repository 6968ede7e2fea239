-- +goose Up
-- ARRIVED: a booked patient checked in on the day. It holds its place like
-- HELD and BOOKED (booking.ActiveStatuses), so every constraint, index and
-- trigger over the active states takes it in.
ALTER TABLE appointments DROP CONSTRAINT appointments_status_check;
ALTER TABLE appointments ADD CONSTRAINT appointments_status_check
    CHECK (status IN ('HELD', 'BOOKED', 'ARRIVED', 'CANCELLED', 'EXPIRED', 'COMPLETED', 'NO_SHOW'));

ALTER TABLE appointments DROP CONSTRAINT appointments_no_overlap;
ALTER TABLE appointments ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
    patient_id WITH =, tstzrange(start_at, end_at) WITH &&
) WHERE (status IN ('HELD', 'BOOKED', 'ARRIVED') AND round_id IS NULL);

DROP INDEX appointments_slot_patient_active;
CREATE UNIQUE INDEX appointments_slot_patient_active ON appointments (slot_id, patient_id)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED');
DROP INDEX appointments_slot_queue_active;
CREATE UNIQUE INDEX appointments_slot_queue_active ON appointments (slot_id, queue_no)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED');
DROP INDEX appointments_round_active_idx;
CREATE INDEX appointments_round_active_idx ON appointments (round_id, patient_id)
    WHERE round_id IS NOT NULL AND status IN ('HELD', 'BOOKED', 'ARRIVED');
DROP INDEX appointments_patient_active_idx;
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED', 'ARRIVED') AND round_id IS NULL;

DROP TRIGGER appointments_round_quota_release ON appointments;
CREATE TRIGGER appointments_round_quota_release AFTER UPDATE OF status ON appointments
    FOR EACH ROW
    WHEN (OLD.round_id IS NOT NULL AND OLD.status IN ('HELD', 'BOOKED', 'ARRIVED')
          AND NEW.status NOT IN ('HELD', 'BOOKED', 'ARRIVED'))
    EXECUTE FUNCTION round_quota_release();

-- The appointments due on the day by start: the kiosk's candidates for a
-- typed code (ArrivalCandidates), clinic-wide.
CREATE INDEX appointments_due_idx ON appointments (start_at) WHERE status IN ('BOOKED', 'ARRIVED');

-- The check-in window (booking.Policy): from this many minutes before the
-- start to this many after.
ALTER TABLE clinic_policy ADD COLUMN check_in_before_minutes integer NOT NULL DEFAULT 60;
ALTER TABLE clinic_policy ADD COLUMN check_in_after_minutes integer NOT NULL DEFAULT 15;
-- A BOOKED appointment not checked in this long after its start becomes
-- NO_SHOW by itself (booking.Policy.AutoNoShow); 0, the default, is off.
ALTER TABLE clinic_policy ADD COLUMN no_show_grace_minutes integer NOT NULL DEFAULT 0;

-- +goose Down
-- An arrived appointment goes back to BOOKED: the older schema knows no
-- ARRIVED, and the place stays taken either way.
ALTER TABLE clinic_policy DROP COLUMN no_show_grace_minutes;
ALTER TABLE clinic_policy DROP COLUMN check_in_after_minutes;
ALTER TABLE clinic_policy DROP COLUMN check_in_before_minutes;
DROP INDEX appointments_due_idx;
UPDATE appointments SET status = 'BOOKED' WHERE status = 'ARRIVED';
DROP TRIGGER appointments_round_quota_release ON appointments;
CREATE TRIGGER appointments_round_quota_release AFTER UPDATE OF status ON appointments
    FOR EACH ROW
    WHEN (OLD.round_id IS NOT NULL AND OLD.status IN ('HELD', 'BOOKED') AND NEW.status NOT IN ('HELD', 'BOOKED'))
    EXECUTE FUNCTION round_quota_release();
DROP INDEX appointments_patient_active_idx;
CREATE INDEX appointments_patient_active_idx ON appointments (patient_id, start_at)
    WHERE status IN ('HELD', 'BOOKED') AND round_id IS NULL;
DROP INDEX appointments_round_active_idx;
CREATE INDEX appointments_round_active_idx ON appointments (round_id, patient_id)
    WHERE round_id IS NOT NULL AND status IN ('HELD', 'BOOKED');
DROP INDEX appointments_slot_queue_active;
CREATE UNIQUE INDEX appointments_slot_queue_active ON appointments (slot_id, queue_no)
    WHERE status IN ('HELD', 'BOOKED');
DROP INDEX appointments_slot_patient_active;
CREATE UNIQUE INDEX appointments_slot_patient_active ON appointments (slot_id, patient_id)
    WHERE status IN ('HELD', 'BOOKED');
ALTER TABLE appointments DROP CONSTRAINT appointments_no_overlap;
ALTER TABLE appointments ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
    patient_id WITH =, tstzrange(start_at, end_at) WITH &&
) WHERE (status IN ('HELD', 'BOOKED') AND round_id IS NULL);
ALTER TABLE appointments DROP CONSTRAINT appointments_status_check;
ALTER TABLE appointments ADD CONSTRAINT appointments_status_check
    CHECK (status IN ('HELD', 'BOOKED', 'CANCELLED', 'EXPIRED', 'COMPLETED', 'NO_SHOW'));
