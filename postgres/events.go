package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// sqlInsertEvents records one event per notification, in order, from the
// appointments as the transaction just left them.
const sqlInsertEvents = `INSERT INTO outbox_events (type, appointment_id, slot_id, patient_id, status, suspension_id, hold_expires_at, occurred_at)
	SELECT n.type, a.id, a.slot_id, a.patient_id, a.status, NULLIF(n.sus, 0),
		CASE WHEN a.status = ` + booking.StatusHeldSQL + ` THEN a.hold_expires_at END, a.updated_at
	FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS n(type, id, sus, ord)
	JOIN appointments a ON a.id = n.id
	ORDER BY n.ord`

// eventsArgs are sqlInsertEvents' arguments for ns; ok is false when
// nothing is to be written (the outbox is off, or ns is empty).
func (s *Store) eventsArgs(ns []booking.Notification) (args []any, ok bool) {
	if !s.events {
		return nil, false
	}
	var types []string
	var ids, sus []int64
	for _, n := range ns {
		if t := booking.EventType(n.Kind); t != "" {
			types, ids, sus = append(types, t), append(ids, n.AppointmentID), append(sus, n.SuspensionID)
		}
	}
	return []any{types, ids, sus}, len(types) > 0
}

// writeEvents writes ns's events inside tx when the outbox is on.
func (s *Store) writeEvents(ctx context.Context, tx pgx.Tx, ns []booking.Notification) error {
	args, ok := s.eventsArgs(ns)
	if !ok {
		return nil
	}
	if _, err := tx.Exec(ctx, sqlInsertEvents, args...); err != nil {
		return fmt.Errorf("postgres: write events: %w", err)
	}
	return nil
}

// relayLock is the session advisory lock that makes one relay of all
// instances publish at a time, so events leave in id order.
const relayLock = 0x736c6f7464 // "slotd"

// RelayEvents publishes up to limit of the oldest events through publish,
// which answers how many of them (a prefix) the brokers confirmed; those
// are deleted. It returns 0 without publishing while another instance's
// relay holds the lock. No transaction is open while publish runs: the
// lock is the session's, on a connection held meanwhile.
func (s *Store) RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, translate(err, "")
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, relayLock).Scan(&got); err != nil || !got {
		return 0, translate(err, "")
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, relayLock); err != nil {
			conn.Conn().Close(ctx) // closing the session drops the lock
		}
	}()
	rows, _ := conn.Query(ctx, `SELECT id, type, appointment_id, slot_id, patient_id, status, coalesce(suspension_id, 0), hold_expires_at, occurred_at
		FROM outbox_events ORDER BY id LIMIT $1`, limit)
	evs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Event, error) {
		var e booking.Event
		err := r.Scan(&e.ID, &e.Type, &e.AppointmentID, &e.SlotID, &e.PatientID, &e.Status, &e.SuspensionID, &e.HoldExpiresAt, &e.Time)
		return e, err
	})
	if err != nil || len(evs) == 0 {
		return 0, translate(err, "")
	}
	n, perr := publish(evs)
	if n > 0 {
		ids := make([]int64, n)
		for i := range n {
			ids[i] = evs[i].ID
		}
		if _, err := conn.Exec(ctx, `DELETE FROM outbox_events WHERE id = ANY($1)`, ids); err != nil {
			return 0, translate(err, "")
		}
	}
	return n, perr
}

// EventBacklog counts the events not yet published.
func (s *Store) EventBacklog(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox_events`).Scan(&n)
	return n, translate(err, "")
}
