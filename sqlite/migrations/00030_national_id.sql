-- +goose Up
-- Mirroring postgres/migrations/00030_national_id.sql: the national ID
-- number of real-name registration, sealed like the phone and unique
-- through its keyed hash (a UNIQUE index lets the NULLs of patients who
-- gave none be), and the policy that asks for it.
ALTER TABLE patients ADD COLUMN national_id_sealed BLOB;
ALTER TABLE patients ADD COLUMN national_id_index BLOB;
CREATE UNIQUE INDEX patients_national_id_index_key ON patients (national_id_index);
ALTER TABLE clinic_policy ADD COLUMN require_national_id INTEGER NOT NULL DEFAULT 0;

-- A sign-up code's delivery record has no patient yet. SQLite cannot drop
-- a NOT NULL: the table is rebuilt with every row and id (no table refers
-- to it, so foreign keys may stay on).
CREATE TABLE messages_new (
    id          INTEGER PRIMARY KEY,
    msg_key     TEXT NOT NULL CONSTRAINT messages_key_key UNIQUE,
    patient_id  INTEGER REFERENCES patients (id),
    kind        TEXT NOT NULL,
    channel     TEXT NOT NULL,
    state       TEXT NOT NULL CONSTRAINT messages_state_check CHECK (state IN ('queued', 'sent', 'delivered', 'failed')),
    provider_id TEXT,
    reason      TEXT NOT NULL DEFAULT '',
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
INSERT INTO messages_new SELECT id, msg_key, patient_id, kind, channel, state, provider_id, reason, attempts, created_at, updated_at FROM messages;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
CREATE INDEX messages_patient_idx ON messages (patient_id, id);
CREATE UNIQUE INDEX messages_provider_idx ON messages (provider_id) WHERE provider_id IS NOT NULL;

-- +goose Down
CREATE TABLE messages_old (
    id          INTEGER PRIMARY KEY,
    msg_key     TEXT NOT NULL CONSTRAINT messages_key_key UNIQUE,
    patient_id  INTEGER NOT NULL REFERENCES patients (id),
    kind        TEXT NOT NULL,
    channel     TEXT NOT NULL,
    state       TEXT NOT NULL CONSTRAINT messages_state_check CHECK (state IN ('queued', 'sent', 'delivered', 'failed')),
    provider_id TEXT,
    reason      TEXT NOT NULL DEFAULT '',
    attempts    INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
INSERT INTO messages_old SELECT id, msg_key, patient_id, kind, channel, state, provider_id, reason, attempts, created_at, updated_at
    FROM messages WHERE patient_id IS NOT NULL;
DROP TABLE messages;
ALTER TABLE messages_old RENAME TO messages;
CREATE INDEX messages_patient_idx ON messages (patient_id, id);
CREATE UNIQUE INDEX messages_provider_idx ON messages (provider_id) WHERE provider_id IS NOT NULL;
ALTER TABLE clinic_policy DROP COLUMN require_national_id;
DROP INDEX patients_national_id_index_key;
ALTER TABLE patients DROP COLUMN national_id_index;
ALTER TABLE patients DROP COLUMN national_id_sealed;
