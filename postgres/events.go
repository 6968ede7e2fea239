package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slotd/slotd/booking"
)

// relayLock is the session advisory lock that makes one relay of all
// instances publish at a time, so events leave in order.
const relayLock = 0x736c6f7464 // "slotd"

// StartEvents places the relay's cursor at this moment when no relay has
// started before: changes from now on are published (Options.Events).
func (s *Store) StartEvents(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO event_cursor (id, done) VALUES (1, pg_current_snapshot()) ON CONFLICT (id) DO NOTHING`)
	return translate(err, "")
}

// RelayEvents publishes, through publish, the events of up to limit of the
// oldest entries of appointments in the audit log not yet published
// (booking.EventOf; migration 00054 tells how the cursor reads them in
// commit order), after what an earlier version left in its outbox. publish
// answers how many of the events (a prefix) the brokers confirmed; the
// cursor moves past them. It returns 0 without publishing while another
// instance's relay holds the lock. No transaction is open while publish
// runs: the lock is the session's, on a connection held meanwhile.
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
	if n, more, err := relayOutbox(ctx, conn, limit, publish); more || err != nil {
		return n, translate(err, "")
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE event_cursor SET upto = pg_current_snapshot() WHERE id = 1 AND upto IS NULL`)
	b.Queue(sqlWindow, limit)
	br := conn.SendBatch(ctx, b)
	var entries []booking.AuditEntry
	_, err = br.Exec()
	if err == nil {
		var rows pgx.Rows
		rows, err = br.Query()
		entries, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.AuditEntry, error) {
			var e booking.AuditEntry
			var before, after *string
			err := r.Scan(&e.ID, &e.At, &e.Action, &e.EntityID, &before, &after)
			e.Entity, e.At = booking.EntityAppointment, e.At.UTC()
			if before != nil {
				e.Before = *before
			}
			if after != nil {
				e.After = *after
			}
			return e, err
		})
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, translate(err, "")
	}
	page := booking.NewEventPage(entries)
	n, perr := 0, error(nil)
	if len(page.Events) > 0 {
		n, perr = publish(page.Events)
	}
	// A window read to its end and all confirmed is done.
	var q string
	var args []any
	if n == len(page.Events) && len(entries) < limit {
		q = `UPDATE event_cursor SET done = upto, upto = NULL, after_id = 0 WHERE id = 1`
	} else if through := page.Through(n); through > 0 {
		q, args = `UPDATE event_cursor SET after_id = $1 WHERE id = 1`, []any{through}
	}
	if q != "" {
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			return 0, translate(err, "")
		}
	}
	return n, perr
}

// sqlWindow reads the next entries of appointments in the cursor's
// window, in id order: one appointment's later change waits for the
// earlier one's lock, so its entry has the larger id. Each page sorts what
// is left of the window (of the index's range): a few hundred entries
// while the relay keeps up, everything since when it comes back from an
// outage.
const sqlWindow = `SELECT a.id, a.at, a.action, a.entity_id, a.before::text, a.after::text
	FROM event_cursor c JOIN audit_log a ON a.entity = 'appointment' AND a.tx IS NOT NULL
		AND a.tx >= pg_snapshot_xmin(c.done) AND a.tx < pg_snapshot_xmax(c.upto) AND a.id > c.after_id
	WHERE c.id = 1 AND pg_visible_in_snapshot(a.tx, c.upto) AND NOT pg_visible_in_snapshot(a.tx, c.done)
	ORDER BY a.id LIMIT $1`

// relayOutbox publishes up to limit of the events an earlier version left
// in outbox_events, in id order, and deletes the prefix publish
// confirmed; more says it found some (the log waits until none is left).
func relayOutbox(ctx context.Context, conn *pgxpool.Conn, limit int, publish func([]booking.Event) (int, error)) (n int, more bool, err error) {
	rows, _ := conn.Query(ctx, `SELECT id, type, appointment_id, slot_id, patient_id, status, coalesce(suspension_id, 0), hold_expires_at, occurred_at
		FROM outbox_events ORDER BY id LIMIT $1`, limit)
	evs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Event, error) {
		var e booking.Event
		err := r.Scan(&e.ID, &e.Type, &e.AppointmentID, &e.SlotID, &e.PatientID, &e.Status, &e.SuspensionID, &e.HoldExpiresAt, &e.Time)
		return e, err
	})
	if err != nil || len(evs) == 0 {
		return 0, false, err
	}
	n, perr := publish(evs)
	if n > 0 {
		ids := make([]int64, n)
		for i := range n {
			ids[i] = evs[i].ID
		}
		if _, err := conn.Exec(ctx, `DELETE FROM outbox_events WHERE id = ANY($1)`, ids); err != nil {
			return 0, true, err
		}
	}
	return n, true, perr
}

// EventBacklog counts the entries of appointments not yet relayed (and
// what an earlier version left in its outbox); 0 before a relay started.
func (s *Store) EventBacklog(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM outbox_events) + (SELECT count(*)
		FROM event_cursor c JOIN audit_log a ON a.entity = 'appointment' AND a.tx IS NOT NULL AND a.tx >= pg_snapshot_xmin(c.done)
		WHERE c.id = 1 AND NOT pg_visible_in_snapshot(a.tx, c.done)
			AND (c.upto IS NULL OR NOT pg_visible_in_snapshot(a.tx, c.upto) OR a.id > c.after_id))`).Scan(&n)
	return n, translate(err, "")
}
