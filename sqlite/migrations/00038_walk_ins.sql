-- +goose NO TRANSACTION
-- +goose Up
-- Mirrors postgres/migrations/00038_walk_ins.sql: walk-ins beyond a slot's
-- capacity (booking.DecideWalkIn). SQLite cannot alter a CHECK constraint,
-- so slots is rebuilt by its documented procedure, keeping every column,
-- constraint, index and trigger, with booked_count bounded by capacity +
-- walk_ins. legacy_alter_table: the rename must not re-check trigger
-- appointment_places_release, which names slots while it is dropped.
-- +goose StatementBegin
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN IMMEDIATE;
CREATE TABLE slots_new (
    id            INTEGER PRIMARY KEY,
    resource_id   INTEGER NOT NULL REFERENCES resources (id),
    schedule_id   INTEGER REFERENCES schedules (id),
    start_at      INTEGER NOT NULL,
    end_at        INTEGER NOT NULL,
    capacity      INTEGER NOT NULL CONSTRAINT slots_capacity_check CHECK (capacity > 0),
    booked_count  INTEGER NOT NULL DEFAULT 0,
    opens_at      INTEGER NOT NULL,
    status        TEXT NOT NULL DEFAULT 'OPEN' CONSTRAINT slots_status_check CHECK (status IN ('OPEN', 'CLOSED')),
    fee_cents     INTEGER NOT NULL DEFAULT 0 CONSTRAINT slots_fee_cents_check CHECK (fee_cents >= 0),
    hold_seconds  INTEGER NOT NULL DEFAULT 900 CONSTRAINT slots_hold_seconds_check CHECK (hold_seconds > 0),
    round_id      INTEGER REFERENCES rounds (id),
    offer_pending INTEGER NOT NULL DEFAULT 0
        CONSTRAINT slots_offer_pending_check CHECK (offer_pending BETWEEN 0 AND booked_count),
    closed_by     INTEGER REFERENCES suspensions (id),
    -- How far above its capacity walk-ins ever took the slot; never
    -- lowered, so a cancelled walk-in does not reopen a place.
    walk_ins      INTEGER NOT NULL DEFAULT 0 CONSTRAINT slots_walk_ins_check CHECK (walk_ins >= 0),
    CONSTRAINT slots_booked_within_capacity CHECK (booked_count BETWEEN 0 AND capacity + walk_ins),
    CONSTRAINT slots_resource_start_key UNIQUE (resource_id, start_at),
    CONSTRAINT slots_end_after_start CHECK (end_at > start_at)
) STRICT;
INSERT INTO slots_new (id, resource_id, schedule_id, start_at, end_at, capacity, booked_count, opens_at, status,
        fee_cents, hold_seconds, round_id, offer_pending, closed_by)
    SELECT id, resource_id, schedule_id, start_at, end_at, capacity, booked_count, opens_at, status,
        fee_cents, hold_seconds, round_id, offer_pending, closed_by FROM slots;
DROP TABLE slots;
ALTER TABLE slots_new RENAME TO slots;

CREATE INDEX slots_round_idx ON slots (round_id) WHERE round_id IS NOT NULL;
CREATE INDEX slots_closed_by_idx ON slots (closed_by) WHERE closed_by IS NOT NULL;
CREATE TRIGGER slots_no_overlap_insert
BEFORE INSERT ON slots
WHEN NEW.round_id IS NULL AND (
    EXISTS (SELECT 1 FROM slots o
             WHERE o.resource_id = NEW.resource_id AND o.start_at > NEW.start_at AND o.start_at < NEW.end_at
               AND o.round_id IS NULL)
    OR coalesce((SELECT o.end_at > NEW.start_at FROM slots o
                  WHERE o.resource_id = NEW.resource_id AND o.start_at < NEW.start_at AND o.round_id IS NULL
                  ORDER BY o.start_at DESC LIMIT 1), 0)
)
BEGIN
    SELECT RAISE(ABORT, 'slots_no_overlap');
END;

ALTER TABLE appointments ADD COLUMN walk_in INTEGER NOT NULL DEFAULT 0
    CONSTRAINT appointments_walk_in_check CHECK (walk_in IN (0, 1));
ALTER TABLE appointments ADD COLUMN walk_in_reason TEXT
    CONSTRAINT appointments_walk_in_reason_check CHECK ((walk_in_reason IS NOT NULL) = walk_in
        AND (walk_in_reason IS NULL OR length(walk_in_reason) BETWEEN 1 AND 200));
-- A slot's active walk-ins (the policy's count) and reconciliation's figure.
CREATE INDEX appointments_walk_in_active ON appointments (slot_id) WHERE walk_in AND status IN ('HELD', 'BOOKED', 'ARRIVED');
ALTER TABLE clinic_policy ADD COLUMN walk_ins_per_slot INTEGER NOT NULL DEFAULT 2
    CONSTRAINT clinic_policy_walk_ins_per_slot_check CHECK (walk_ins_per_slot BETWEEN 0 AND 20);
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
-- +goose StatementEnd

-- +goose Down
-- The rebuilt slots table stays (its walk_ins column and wider CHECK are
-- never met by the older code: walk_ins stays 0 on every new slot).
-- +goose StatementBegin
BEGIN IMMEDIATE;
ALTER TABLE clinic_policy DROP COLUMN walk_ins_per_slot;
DROP INDEX appointments_walk_in_active;
ALTER TABLE appointments DROP COLUMN walk_in_reason;
ALTER TABLE appointments DROP COLUMN walk_in;
COMMIT;
-- +goose StatementEnd
