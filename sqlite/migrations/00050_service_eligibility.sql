-- +goose Up
-- Mirroring postgres/migrations/00050_service_eligibility.sql: a service's
-- eligibility rule (age range, cohort tags). cohorts is a JSON array of
-- tags (PostgreSQL: text[]).
CREATE TABLE service_eligibility_rules (
    service_id INTEGER PRIMARY KEY REFERENCES services (id),
    min_age    INTEGER CONSTRAINT service_eligibility_rules_min_age_check CHECK (min_age BETWEEN 0 AND 150),
    max_age    INTEGER CONSTRAINT service_eligibility_rules_max_age_check CHECK (max_age BETWEEN 0 AND 150),
    cohorts    TEXT NOT NULL DEFAULT '[]',
    updated_at INTEGER NOT NULL,
    CONSTRAINT service_eligibility_rules_ages_check CHECK (min_age IS NULL OR max_age IS NULL OR min_age <= max_age)
) STRICT;

-- +goose Down
DROP TABLE service_eligibility_rules;
