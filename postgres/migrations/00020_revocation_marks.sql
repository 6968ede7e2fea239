-- +goose Up
-- Revocation marks (booking.Mark): a token is good only if it was issued
-- after its subject's valid_after, and never while closed (a deactivated or
-- erased patient, a disabled staff user). Marks only move forward; every
-- instance reads the ones moved recently (the index) and the closed ones.
-- Mirrors sqlite/migrations/00020_revocation_marks.sql.
CREATE TABLE revocation_marks (
    role        text        NOT NULL CONSTRAINT revocation_marks_role_check CHECK (role IN ('patient', 'doctor', 'admin')),
    subject     text        NOT NULL CONSTRAINT revocation_marks_subject_check CHECK (length(subject) BETWEEN 1 AND 200),
    valid_after timestamptz NOT NULL,
    closed      boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (role, subject)
);
CREATE INDEX revocation_marks_valid_after_idx ON revocation_marks (valid_after);
CREATE INDEX revocation_marks_closed_idx ON revocation_marks (role, subject) WHERE closed;

-- A disabled staff user cannot sign in (slotd staff-disable).
ALTER TABLE staff_users ADD COLUMN disabled_at timestamptz;

-- +goose Down
ALTER TABLE staff_users DROP COLUMN disabled_at;
DROP TABLE revocation_marks;
