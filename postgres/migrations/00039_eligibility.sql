-- +goose Up
-- Vaccination campaigns: a schedule's eligibility rule (age range on the
-- slot's day, cohort tags, invitation required) with the places of each
-- of its slots held for a cohort or for invitations until a time; the
-- patients' cohort tags; and the single-use invitation codes, kept only
-- as keyed hashes. An invitation's appointment_id is the booking that
-- used it (NULL: unused).
CREATE TABLE eligibility_rules (
    schedule_id         bigint PRIMARY KEY REFERENCES schedules (id),
    min_age             integer CONSTRAINT eligibility_rules_min_age_check CHECK (min_age BETWEEN 0 AND 150),
    max_age             integer CONSTRAINT eligibility_rules_max_age_check CHECK (max_age BETWEEN 0 AND 150),
    cohorts             text[] NOT NULL DEFAULT '{}',
    invitation_required boolean NOT NULL DEFAULT false,
    reserve_places      integer NOT NULL DEFAULT 0 CONSTRAINT eligibility_rules_reserve_check CHECK (reserve_places BETWEEN 0 AND 10000),
    reserve_cohort      text NOT NULL DEFAULT '',
    reserve_until       timestamptz,
    updated_at          timestamptz NOT NULL,
    CONSTRAINT eligibility_rules_ages_check CHECK (min_age IS NULL OR max_age IS NULL OR min_age <= max_age)
);
CREATE TABLE patient_cohorts (
    patient_id bigint NOT NULL REFERENCES patients (id),
    tag        text NOT NULL CONSTRAINT patient_cohorts_tag_check CHECK (length(tag) BETWEEN 1 AND 50),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (patient_id, tag)
);
CREATE TABLE invitations (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code_hash      bytea NOT NULL CONSTRAINT invitations_code_key UNIQUE,
    schedule_id    bigint NOT NULL REFERENCES schedules (id),
    created_at     timestamptz NOT NULL,
    appointment_id bigint CONSTRAINT invitations_appointment_key UNIQUE REFERENCES appointments (id) ON DELETE SET NULL,
    used_at        timestamptz
);

-- An invitation follows its appointment: when the appointment is
-- cancelled or expires (by whatever path: the patient's cancel, staff, a
-- suspension, an unpaid hold's deadline), the code is free again in the
-- same transaction, so no path can forget it. A completed or missed visit
-- keeps its code: it was used.
-- +goose StatementBegin
CREATE FUNCTION invitations_release() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE invitations SET appointment_id = NULL, used_at = NULL WHERE appointment_id = NEW.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER invitations_release
AFTER UPDATE OF status ON appointments
FOR EACH ROW
WHEN (OLD.status IN ('HELD', 'BOOKED', 'ARRIVED') AND NEW.status IN ('CANCELLED', 'EXPIRED'))
EXECUTE FUNCTION invitations_release();

-- +goose Down
DROP TRIGGER invitations_release ON appointments;
DROP FUNCTION invitations_release();
DROP TABLE invitations;
DROP TABLE patient_cohorts;
DROP TABLE eligibility_rules;
