-- +goose Up
-- A service's eligibility rule (booking.ServiceRule): every visit of the
-- service is for the people of its age range (on the visit's day) and
-- cohort tags. Invitation codes and reserved places stay a schedule's
-- (eligibility_rules): one owner each.
CREATE TABLE service_eligibility_rules (
    service_id bigint PRIMARY KEY REFERENCES services (id),
    min_age    integer CONSTRAINT service_eligibility_rules_min_age_check CHECK (min_age BETWEEN 0 AND 150),
    max_age    integer CONSTRAINT service_eligibility_rules_max_age_check CHECK (max_age BETWEEN 0 AND 150),
    cohorts    text[] NOT NULL DEFAULT '{}',
    updated_at timestamptz NOT NULL,
    CONSTRAINT service_eligibility_rules_ages_check CHECK (min_age IS NULL OR max_age IS NULL OR min_age <= max_age)
);

-- +goose Down
DROP TABLE service_eligibility_rules;
