-- +goose Up
-- Services (visit types) and the doctors who offer them. A visit of a
-- service is one appointment in its first slot (appointments.service_id,
-- nullable: adding it rewrites no row) holding a place in each further
-- slot it covers (appointment_places).
CREATE TABLE services (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL CONSTRAINT services_name_key UNIQUE,
    minutes    integer NOT NULL CONSTRAINT services_minutes_check CHECK (minutes BETWEEN 5 AND 240),
    fee_cents  bigint NOT NULL DEFAULT 0 CONSTRAINT services_fee_check CHECK (fee_cents >= 0),
    level      text NOT NULL CONSTRAINT services_level_check CHECK (level IN ('ordinary', 'specialist')),
    notes      text NOT NULL DEFAULT '',
    active     boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL
);
CREATE TABLE service_doctors (
    service_id bigint NOT NULL REFERENCES services (id),
    doctor_id  bigint NOT NULL REFERENCES resources (id),
    PRIMARY KEY (service_id, doctor_id)
);
CREATE INDEX service_doctors_doctor_idx ON service_doctors (doctor_id, service_id);
ALTER TABLE appointments ADD COLUMN service_id bigint REFERENCES services (id);
CREATE TABLE appointment_places (
    appointment_id bigint NOT NULL REFERENCES appointments (id) ON DELETE CASCADE,
    slot_id        bigint NOT NULL REFERENCES slots (id),
    PRIMARY KEY (appointment_id, slot_id)
);
-- Reconciliation counts a slot's places by slot.
CREATE INDEX appointment_places_slot_idx ON appointment_places (slot_id, appointment_id);

-- A visit's further places follow its appointment: when it leaves the
-- active states (HELD, BOOKED, ARRIVED: booking.ActiveStatuses; nothing
-- returns to them), by whatever path (cancel, expiry, suspension,
-- completion), each of those slots gives its place back in the same
-- transaction, so no path can forget one. The slots are locked in id
-- order first, the order a visit's booking takes them in.
-- +goose StatementBegin
CREATE FUNCTION appointment_places_release() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM slots WHERE id IN (SELECT slot_id FROM appointment_places WHERE appointment_id = NEW.id)
      ORDER BY id FOR UPDATE;
    UPDATE slots SET booked_count = booked_count - 1
     WHERE id IN (SELECT slot_id FROM appointment_places WHERE appointment_id = NEW.id);
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER appointment_places_release
AFTER UPDATE OF status ON appointments
FOR EACH ROW
WHEN (OLD.status IN ('HELD', 'BOOKED', 'ARRIVED') AND NEW.status NOT IN ('HELD', 'BOOKED', 'ARRIVED'))
EXECUTE FUNCTION appointment_places_release();

-- +goose Down
DROP TRIGGER appointment_places_release ON appointments;
DROP FUNCTION appointment_places_release();
DROP TABLE appointment_places;
ALTER TABLE appointments DROP COLUMN service_id;
DROP TABLE service_doctors;
DROP TABLE services;
