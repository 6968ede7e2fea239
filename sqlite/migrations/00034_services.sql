-- +goose Up
-- Mirroring postgres/migrations/00034_services.sql: services (visit types)
-- and the doctors who offer them; a visit of a service is one appointment
-- in its first slot (appointments.service_id) holding a place in each
-- further slot it covers (appointment_places).
CREATE TABLE services (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL CONSTRAINT services_name_key UNIQUE,
    minutes    INTEGER NOT NULL CONSTRAINT services_minutes_check CHECK (minutes BETWEEN 5 AND 240),
    fee_cents  INTEGER NOT NULL DEFAULT 0 CONSTRAINT services_fee_check CHECK (fee_cents >= 0),
    level      TEXT NOT NULL CONSTRAINT services_level_check CHECK (level IN ('ordinary', 'specialist')),
    notes      TEXT NOT NULL DEFAULT '',
    active     INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
) STRICT;
CREATE TABLE service_doctors (
    service_id INTEGER NOT NULL REFERENCES services (id),
    doctor_id  INTEGER NOT NULL REFERENCES resources (id),
    PRIMARY KEY (service_id, doctor_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX service_doctors_doctor_idx ON service_doctors (doctor_id, service_id);
ALTER TABLE appointments ADD COLUMN service_id INTEGER REFERENCES services (id);
CREATE TABLE appointment_places (
    appointment_id INTEGER NOT NULL REFERENCES appointments (id) ON DELETE CASCADE,
    slot_id        INTEGER NOT NULL REFERENCES slots (id),
    PRIMARY KEY (appointment_id, slot_id)
) STRICT, WITHOUT ROWID;
-- Reconciliation counts a slot's places by slot.
CREATE INDEX appointment_places_slot_idx ON appointment_places (slot_id, appointment_id);
-- A visit's further places follow its appointment: when it leaves the
-- active states (HELD, BOOKED, ARRIVED: booking.ActiveStatuses; nothing
-- returns to them), by whatever path (cancel, expiry, suspension,
-- completion), each of those slots gives its place back in the same
-- statement, so no path can forget one.
-- +goose StatementBegin
CREATE TRIGGER appointment_places_release
AFTER UPDATE OF status ON appointments
WHEN OLD.status IN ('HELD', 'BOOKED', 'ARRIVED') AND NEW.status NOT IN ('HELD', 'BOOKED', 'ARRIVED')
BEGIN
    UPDATE slots SET booked_count = booked_count - 1
     WHERE id IN (SELECT slot_id FROM appointment_places WHERE appointment_id = NEW.id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER appointment_places_release;
DROP TABLE appointment_places;
ALTER TABLE appointments DROP COLUMN service_id;
DROP TABLE service_doctors;
DROP TABLE services;
