-- +goose Up
-- The domain events' outbox (booking.Event): written in the transaction of
-- the state change each records, published at least once in id order by
-- the event relay (package events), then deleted. A state change of one
-- appointment waits for the previous one's row lock, so its event always
-- gets the larger id: per appointment, id order is the order of changes.
CREATE TABLE outbox_events (
    id             bigserial PRIMARY KEY,
    type           text NOT NULL,
    appointment_id bigint NOT NULL,
    slot_id        bigint NOT NULL,
    patient_id     bigint NOT NULL,
    status         text NOT NULL,
    suspension_id  bigint,
    hold_expires_at timestamptz,
    occurred_at    timestamptz NOT NULL
);

-- +goose Down
DROP TABLE outbox_events;
