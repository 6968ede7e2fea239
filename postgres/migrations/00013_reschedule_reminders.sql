-- +goose Up
-- A reschedule's Idempotency-Key: a retry finds the appointment it moved.
CREATE TABLE reschedules (
    patient_id      bigint NOT NULL REFERENCES patients (id),
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     text NOT NULL,
    appointment_id  bigint NOT NULL REFERENCES appointments (id),
    from_slot_id    bigint NOT NULL REFERENCES slots (id),
    to_slot_id      bigint NOT NULL REFERENCES slots (id),
    created_at      timestamptz NOT NULL,
    CONSTRAINT reschedules_patient_key_key PRIMARY KEY (patient_id, idempotency_key)
);

-- A schedule's own reminder offsets ("24h,2h"); NULL takes the server's.
ALTER TABLE schedules ADD COLUMN reminders text;

-- One row per reminder sent (or passed over): the scan that sends them
-- inserts here and enqueues the message in the same transaction, so each
-- offset is announced once, across restarts and processes.
CREATE TABLE reminders (
    appointment_id bigint NOT NULL REFERENCES appointments (id),
    offset_minutes integer NOT NULL CHECK (offset_minutes > 0),
    sent           boolean NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (appointment_id, offset_minutes)
);

-- The waitlist (booking/waitlist.go). A place released in a slot that a
-- waiting entry matches stays counted in booked_count as offer_pending
-- until the offer job turns it into a HELD offer (an appointment) or gives
-- it back: booked_count = active appointments + offer_pending.
ALTER TABLE slots ADD COLUMN offer_pending integer NOT NULL DEFAULT 0
    CONSTRAINT slots_offer_pending_check CHECK (offer_pending BETWEEN 0 AND booked_count);
-- How long an offer of this schedule's slots is held (NULL: 15 minutes).
ALTER TABLE schedules ADD COLUMN offer_minutes integer CHECK (offer_minutes BETWEEN 1 AND 1440);

CREATE TABLE waitlist_entries (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    patient_id       bigint NOT NULL REFERENCES patients (id),
    doctor_id        bigint REFERENCES resources (id),
    department_id    bigint REFERENCES departments (id),
    from_at          timestamptz NOT NULL,
    to_at            timestamptz NOT NULL,
    part_of_day      text NOT NULL CHECK (part_of_day IN ('morning', 'afternoon', 'any')),
    state            text NOT NULL CHECK (state IN ('WAITING', 'OFFERED', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'FULFILLED', 'CANCELLED', 'LAPSED')),
    -- The offer: every offer belongs to exactly one entry (the unique key).
    appointment_id   bigint CONSTRAINT waitlist_entries_appointment_key UNIQUE REFERENCES appointments (id),
    slot_id          bigint REFERENCES slots (id),
    offer_expires_at timestamptz,
    idempotency_key  text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint      text NOT NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    CONSTRAINT waitlist_entries_patient_key_key UNIQUE (patient_id, idempotency_key),
    CHECK ((doctor_id IS NULL) <> (department_id IS NULL)),
    CHECK (state <> 'OFFERED' OR appointment_id IS NOT NULL)
);
CREATE INDEX waitlist_entries_doctor_live ON waitlist_entries (doctor_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_department_live ON waitlist_entries (department_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_patient ON waitlist_entries (patient_id, id DESC);

-- +goose Down
DROP TABLE waitlist_entries;
ALTER TABLE schedules DROP COLUMN offer_minutes;
ALTER TABLE slots DROP COLUMN offer_pending;
DROP TABLE reminders;
ALTER TABLE schedules DROP COLUMN reminders;
DROP TABLE reschedules;
