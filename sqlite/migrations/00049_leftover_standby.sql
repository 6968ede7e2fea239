-- +goose NO TRANSACTION
-- +goose Up
-- Mirrors postgres/migrations/00049_leftover_standby.sql: a standby is a
-- waitlist entry for a site. SQLite cannot alter a CHECK constraint, so
-- waitlist_entries is rebuilt by its documented procedure (nothing refers
-- to it), keeping every column (the parties' party_ids of 00048 too), constraint and index.
-- +goose StatementBegin
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
CREATE TABLE waitlist_entries_new (
    id               INTEGER PRIMARY KEY,
    patient_id       INTEGER NOT NULL REFERENCES patients (id),
    doctor_id        INTEGER REFERENCES resources (id),
    department_id    INTEGER REFERENCES departments (id),
    from_at          INTEGER NOT NULL,
    to_at            INTEGER NOT NULL,
    part_of_day      TEXT NOT NULL CHECK (part_of_day IN ('morning', 'afternoon', 'any')),
    state            TEXT NOT NULL CHECK (state IN ('WAITING', 'OFFERED', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'FULFILLED', 'CANCELLED', 'LAPSED')),
    appointment_id   INTEGER CONSTRAINT waitlist_entries_appointment_key UNIQUE REFERENCES appointments (id),
    slot_id          INTEGER REFERENCES slots (id),
    offer_expires_at INTEGER,
    idempotency_key  TEXT NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint      TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    party_ids        TEXT NOT NULL DEFAULT '[]' CONSTRAINT waitlist_entries_party_check CHECK (json_valid(party_ids) AND json_array_length(party_ids) <= 10),
    site_id          INTEGER REFERENCES sites (id),
    CONSTRAINT waitlist_entries_patient_key_key UNIQUE (patient_id, idempotency_key),
    CONSTRAINT waitlist_entries_target_check CHECK ((doctor_id IS NOT NULL) + (department_id IS NOT NULL) + (site_id IS NOT NULL) = 1),
    CHECK (state <> 'OFFERED' OR appointment_id IS NOT NULL)
) STRICT;
INSERT INTO waitlist_entries_new (id, patient_id, doctor_id, department_id, from_at, to_at, part_of_day, state,
    appointment_id, slot_id, offer_expires_at, idempotency_key, fingerprint, created_at, updated_at, party_ids)
SELECT id, patient_id, doctor_id, department_id, from_at, to_at, part_of_day, state,
    appointment_id, slot_id, offer_expires_at, idempotency_key, fingerprint, created_at, updated_at, party_ids FROM waitlist_entries;
DROP TABLE waitlist_entries;
ALTER TABLE waitlist_entries_new RENAME TO waitlist_entries;
CREATE INDEX waitlist_entries_doctor_live ON waitlist_entries (doctor_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_department_live ON waitlist_entries (department_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_patient ON waitlist_entries (patient_id, id DESC);
CREATE INDEX waitlist_entries_site_live ON waitlist_entries (site_id, created_at, id)
    WHERE site_id IS NOT NULL AND state IN ('WAITING', 'OFFERED');
CREATE TABLE site_standby_policy (
    site_id      INTEGER PRIMARY KEY REFERENCES sites (id),
    enabled      INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
    hold_minutes INTEGER NOT NULL DEFAULT 10 CHECK (hold_minutes BETWEEN 1 AND 120),
    at_once      INTEGER NOT NULL DEFAULT 0 CHECK (at_once BETWEEN 0 AND 100)
) STRICT;
COMMIT;
PRAGMA foreign_keys = ON;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
PRAGMA foreign_keys = OFF;
BEGIN IMMEDIATE;
DROP TABLE site_standby_policy;
DELETE FROM waitlist_entries WHERE site_id IS NOT NULL;
CREATE TABLE waitlist_entries_old (
    id               INTEGER PRIMARY KEY,
    patient_id       INTEGER NOT NULL REFERENCES patients (id),
    doctor_id        INTEGER REFERENCES resources (id),
    department_id    INTEGER REFERENCES departments (id),
    from_at          INTEGER NOT NULL,
    to_at            INTEGER NOT NULL,
    part_of_day      TEXT NOT NULL CHECK (part_of_day IN ('morning', 'afternoon', 'any')),
    state            TEXT NOT NULL CHECK (state IN ('WAITING', 'OFFERED', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'FULFILLED', 'CANCELLED', 'LAPSED')),
    appointment_id   INTEGER CONSTRAINT waitlist_entries_appointment_key UNIQUE REFERENCES appointments (id),
    slot_id          INTEGER REFERENCES slots (id),
    offer_expires_at INTEGER,
    idempotency_key  TEXT NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 64),
    fingerprint      TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    party_ids        TEXT NOT NULL DEFAULT '[]' CONSTRAINT waitlist_entries_party_check CHECK (json_valid(party_ids) AND json_array_length(party_ids) <= 10),
    CONSTRAINT waitlist_entries_patient_key_key UNIQUE (patient_id, idempotency_key),
    CHECK ((doctor_id IS NULL) <> (department_id IS NULL)),
    CHECK (state <> 'OFFERED' OR appointment_id IS NOT NULL)
) STRICT;
INSERT INTO waitlist_entries_old SELECT id, patient_id, doctor_id, department_id, from_at, to_at, part_of_day, state,
    appointment_id, slot_id, offer_expires_at, idempotency_key, fingerprint, created_at, updated_at, party_ids FROM waitlist_entries;
DROP TABLE waitlist_entries;
ALTER TABLE waitlist_entries_old RENAME TO waitlist_entries;
CREATE INDEX waitlist_entries_doctor_live ON waitlist_entries (doctor_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_department_live ON waitlist_entries (department_id, created_at, id) WHERE state IN ('WAITING', 'OFFERED');
CREATE INDEX waitlist_entries_patient ON waitlist_entries (patient_id, id DESC);
COMMIT;
PRAGMA foreign_keys = ON;
-- +goose StatementEnd
