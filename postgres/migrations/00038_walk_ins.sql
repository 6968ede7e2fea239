-- +goose Up
-- Walk-ins (booking.DecideWalkIn): on the slot's day the front desk may add
-- a place beyond its capacity, with a reason, at most walk_ins_per_slot
-- active ones per slot (0: off).
ALTER TABLE clinic_policy ADD COLUMN walk_ins_per_slot integer NOT NULL DEFAULT 2
    CONSTRAINT clinic_policy_walk_ins_per_slot_check CHECK (walk_ins_per_slot BETWEEN 0 AND 20);
-- slots.walk_ins is how far above its capacity a slot was ever taken by
-- walk-ins; it is never lowered, so a cancelled walk-in's place does not
-- reopen to booking beyond the capacity. booked_count still counts every
-- active place, walk-ins included.
ALTER TABLE slots ADD COLUMN walk_ins integer NOT NULL DEFAULT 0
    CONSTRAINT slots_walk_ins_check CHECK (walk_ins >= 0);
ALTER TABLE slots DROP CONSTRAINT slots_booked_within_capacity;
ALTER TABLE slots ADD CONSTRAINT slots_booked_within_capacity CHECK (booked_count BETWEEN 0 AND capacity + walk_ins);
ALTER TABLE appointments ADD COLUMN walk_in boolean NOT NULL DEFAULT false;
ALTER TABLE appointments ADD COLUMN walk_in_reason text
    CONSTRAINT appointments_walk_in_reason_check CHECK ((walk_in_reason IS NOT NULL) = walk_in
        AND (walk_in_reason IS NULL OR char_length(walk_in_reason) BETWEEN 1 AND 200));

-- A slot's active walk-ins (the policy's count) and reconciliation's figure.
CREATE INDEX appointments_walk_in_active ON appointments (slot_id) WHERE walk_in AND status IN ('HELD', 'BOOKED', 'ARRIVED');

-- +goose Down
-- A slot taken beyond its capacity keeps its walk-ins as ordinary places;
-- the older CHECK is restored only where it holds (NOT VALID otherwise).
DROP INDEX appointments_walk_in_active;
ALTER TABLE appointments DROP COLUMN walk_in_reason;
ALTER TABLE appointments DROP COLUMN walk_in;
ALTER TABLE slots DROP CONSTRAINT slots_booked_within_capacity;
ALTER TABLE slots ADD CONSTRAINT slots_booked_within_capacity CHECK (booked_count BETWEEN 0 AND capacity) NOT VALID;
ALTER TABLE slots DROP COLUMN walk_ins;
ALTER TABLE clinic_policy DROP COLUMN walk_ins_per_slot;
