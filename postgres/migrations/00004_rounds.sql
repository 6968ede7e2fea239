-- +goose Up
-- Rounds (docs/contracts/rounds.md): room-selection style
-- allocation. A round is a set of slots, one per room, that open together,
-- with a per-student quota of active allocations. Constraint names are
-- mapped in postgres/errors.go.

CREATE TABLE rounds (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL,
    opens_at   timestamptz NOT NULL,
    closes_at  timestamptz NOT NULL,
    term_start timestamptz NOT NULL,
    term_end   timestamptz NOT NULL,
    quota      integer NOT NULL DEFAULT 1 CONSTRAINT rounds_quota_check CHECK (quota >= 1),
    state      text NOT NULL DEFAULT 'DRAFT' CONSTRAINT rounds_state_check CHECK (state IN ('DRAFT', 'OPEN', 'CLOSED')),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rounds_closes_after_opens CHECK (closes_at > opens_at),
    CONSTRAINT rounds_term_check CHECK (term_end > term_start)
);

-- A round's slots. A room appears once per round: its slots of one round
-- share the term, so slots_resource_start_key already refuses a second.
ALTER TABLE slots ADD COLUMN round_id bigint REFERENCES rounds (id);
CREATE INDEX slots_round_idx ON slots (round_id) WHERE round_id IS NOT NULL;

-- appointments.round_id copies the slot's, so that the exclusion
-- constraint and the quota trigger can see it. Round allocations are
-- governed by the round's quota, not by the overlap rule: a student holds a
-- room for the whole term, which every other appointment overlaps, and a
-- quota of 2 means two rooms for the same term.
ALTER TABLE appointments ADD COLUMN round_id bigint REFERENCES rounds (id);
ALTER TABLE appointments DROP CONSTRAINT appointments_no_overlap;
ALTER TABLE appointments ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
    patient_id WITH =, tstzrange(start_at, end_at) WITH &&
) WHERE (status IN ('HELD', 'BOOKED') AND round_id IS NULL);
CREATE INDEX appointments_round_active_idx ON appointments (round_id, patient_id)
    WHERE round_id IS NOT NULL AND status IN ('HELD', 'BOOKED');

-- round_quotas counts each student's active allocations in a round. Book
-- increments it in the transaction that allocates; the trigger below
-- decrements it when an allocation leaves an active state. The CHECK is the
-- last line of defence for the quota.
CREATE TABLE round_quotas (
    round_id   bigint NOT NULL REFERENCES rounds (id),
    patient_id bigint NOT NULL REFERENCES patients (id),
    used       integer NOT NULL,
    quota      integer NOT NULL,
    PRIMARY KEY (round_id, patient_id),
    CONSTRAINT round_quotas_within_quota CHECK (used BETWEEN 0 AND quota)
);

-- Every transition out of an active state (cancel, expiry, reclaim,
-- suspension, completion, no-show) gives the quota back, exactly once: the
-- trigger fires once per row that the conditional update actually moved.
-- One place for it, rather than one in each of those statements, so that a
-- new transition cannot forget it. The WHEN clause is evaluated without
-- calling the function, so ordinary appointments pay next to nothing.
-- +goose StatementBegin
CREATE FUNCTION round_quota_release() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE round_quotas SET used = used - 1
    WHERE round_id = NEW.round_id AND patient_id = NEW.patient_id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER appointments_round_quota_release AFTER UPDATE OF status ON appointments
    FOR EACH ROW
    WHEN (OLD.round_id IS NOT NULL AND OLD.status IN ('HELD', 'BOOKED') AND NEW.status NOT IN ('HELD', 'BOOKED'))
    EXECUTE FUNCTION round_quota_release();

-- round_applications are the asynchronous applications (Prefer:
-- respond-async), decided in arrival order (id) by DecidePending.
CREATE TABLE round_applications (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    round_id        bigint NOT NULL REFERENCES rounds (id),
    patient_id      bigint NOT NULL REFERENCES patients (id),
    slot_id         bigint NOT NULL REFERENCES slots (id),
    idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint     text NOT NULL,
    status          text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ALLOCATED', 'REJECTED')),
    reason          text,
    appointment_id  bigint REFERENCES appointments (id),
    created_at      timestamptz NOT NULL,
    decided_at      timestamptz,
    CONSTRAINT round_applications_patient_key_key UNIQUE (patient_id, idempotency_key),
    CHECK (status <> 'ALLOCATED' OR appointment_id IS NOT NULL)
);
-- The pending queue, oldest first.
CREATE INDEX round_applications_queue_idx ON round_applications (round_id, status, id);

-- +goose Down
DROP TABLE round_applications;
DROP TRIGGER appointments_round_quota_release ON appointments;
DROP FUNCTION round_quota_release();
DROP TABLE round_quotas;
DROP INDEX appointments_round_active_idx;
ALTER TABLE appointments DROP CONSTRAINT appointments_no_overlap;
ALTER TABLE appointments ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (
    patient_id WITH =, tstzrange(start_at, end_at) WITH &&
) WHERE (status IN ('HELD', 'BOOKED'));
ALTER TABLE appointments DROP COLUMN round_id;
ALTER TABLE slots DROP COLUMN round_id;
DROP TABLE rounds;
