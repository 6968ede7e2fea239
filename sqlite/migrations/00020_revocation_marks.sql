-- +goose Up
-- Revocation marks (booking.Mark): a token is good only if it was issued
-- after its subject's valid_after (microseconds since the epoch), and never
-- while closed (a deactivated or erased patient, a disabled staff user).
-- Mirrors postgres/migrations/00020_revocation_marks.sql.
CREATE TABLE revocation_marks (
    role        TEXT    NOT NULL CONSTRAINT revocation_marks_role_check CHECK (role IN ('patient', 'doctor', 'admin')),
    subject     TEXT    NOT NULL CONSTRAINT revocation_marks_subject_check CHECK (length(subject) BETWEEN 1 AND 200),
    valid_after INTEGER NOT NULL,
    closed      INTEGER NOT NULL DEFAULT 0 CONSTRAINT revocation_marks_closed_check CHECK (closed IN (0, 1)),
    PRIMARY KEY (role, subject)
) STRICT;
CREATE INDEX revocation_marks_valid_after_idx ON revocation_marks (valid_after);
CREATE INDEX revocation_marks_closed_idx ON revocation_marks (role, subject) WHERE closed = 1;

-- A disabled staff user cannot sign in (slotd staff-disable).
ALTER TABLE staff_users ADD COLUMN disabled_at INTEGER;

-- +goose Down
ALTER TABLE staff_users DROP COLUMN disabled_at;
DROP TABLE revocation_marks;
