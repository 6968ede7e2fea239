-- +goose Up
-- Mirroring postgres/migrations/00039_eligibility.sql: a schedule's
-- eligibility rule and reserved places, the patients' cohort tags, and the
-- single-use invitation codes kept as keyed hashes. cohorts is a JSON
-- array of tags (PostgreSQL: text[]).
CREATE TABLE eligibility_rules (
    schedule_id         INTEGER PRIMARY KEY REFERENCES schedules (id),
    min_age             INTEGER CONSTRAINT eligibility_rules_min_age_check CHECK (min_age BETWEEN 0 AND 150),
    max_age             INTEGER CONSTRAINT eligibility_rules_max_age_check CHECK (max_age BETWEEN 0 AND 150),
    cohorts             TEXT NOT NULL DEFAULT '[]',
    invitation_required INTEGER NOT NULL DEFAULT 0,
    reserve_places      INTEGER NOT NULL DEFAULT 0 CONSTRAINT eligibility_rules_reserve_check CHECK (reserve_places BETWEEN 0 AND 10000),
    reserve_cohort      TEXT NOT NULL DEFAULT '',
    reserve_until       INTEGER,
    updated_at          INTEGER NOT NULL,
    CONSTRAINT eligibility_rules_ages_check CHECK (min_age IS NULL OR max_age IS NULL OR min_age <= max_age)
) STRICT;
CREATE TABLE patient_cohorts (
    patient_id INTEGER NOT NULL REFERENCES patients (id),
    tag        TEXT NOT NULL CONSTRAINT patient_cohorts_tag_check CHECK (length(tag) BETWEEN 1 AND 50),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (patient_id, tag)
) STRICT, WITHOUT ROWID;
CREATE TABLE invitations (
    id             INTEGER PRIMARY KEY,
    code_hash      BLOB NOT NULL CONSTRAINT invitations_code_key UNIQUE,
    schedule_id    INTEGER NOT NULL REFERENCES schedules (id),
    created_at     INTEGER NOT NULL,
    appointment_id INTEGER CONSTRAINT invitations_appointment_key UNIQUE REFERENCES appointments (id) ON DELETE SET NULL,
    used_at        INTEGER
) STRICT;
-- An invitation follows its appointment: cancelled or expired by whatever
-- path, the code is free again in the same statement.
-- +goose StatementBegin
CREATE TRIGGER invitations_release
AFTER UPDATE OF status ON appointments
WHEN OLD.status IN ('HELD', 'BOOKED', 'ARRIVED') AND NEW.status IN ('CANCELLED', 'EXPIRED')
BEGIN
    UPDATE invitations SET appointment_id = NULL, used_at = NULL WHERE appointment_id = NEW.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER invitations_release;
DROP TABLE invitations;
DROP TABLE patient_cohorts;
DROP TABLE eligibility_rules;
