package sqlite

import (
	"context"
	"database/sql"
	"sync"

	"github.com/slotd/slotd/booking"
)

// relayMu makes one relay publish at a time: one process owns a SQLite
// file, so a process-wide lock is the cluster-wide one.
var relayMu sync.Mutex

// StartEvents places the relay's cursor after the last audit entry when
// no relay has started before: changes from now on are published
// (Options.Events). (WHERE true: SQLite's parser needs a WHERE between an
// INSERT's SELECT and its ON CONFLICT.)
func (s *Store) StartEvents(ctx context.Context) error {
	return mapErr(s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO event_cursor (id, after_id) SELECT 1, coalesce(max(id), 0) FROM audit_log WHERE true
			ON CONFLICT (id) DO NOTHING`)
		return err
	}), "")
}

// RelayEvents publishes, through publish, the events of up to limit of the
// oldest entries of appointments in the audit log after the cursor
// (booking.EventOf), after what an earlier version left in its outbox;
// the cursor moves past the prefix publish confirmed
// (postgres.Store.RelayEvents). The writer commits in id order, so the
// last id published is the whole cursor.
func (s *Store) RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error) {
	relayMu.Lock()
	defer relayMu.Unlock()
	if n, more, err := s.relayOutbox(ctx, limit, publish); more || err != nil {
		return n, mapErr(err, "")
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT a.id, a.at, a.action, a.entity_id, coalesce(a.before, ''), coalesce(a.after, '')
		FROM event_cursor c JOIN audit_log a ON a.id > c.after_id AND a.entity = 'appointment'
		WHERE c.id = 1 ORDER BY a.id LIMIT ?1`, limit)
	if err != nil {
		return 0, mapErr(err, "")
	}
	var entries []booking.AuditEntry
	for rows.Next() {
		e := booking.AuditEntry{Entity: booking.EntityAppointment}
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Action, &e.EntityID, &e.Before, &e.After); err != nil {
			rows.Close()
			return 0, mapErr(err, "")
		}
		e.At = fromTS(at)
		entries = append(entries, e)
	}
	if err := rows.Close(); err != nil {
		return 0, mapErr(err, "")
	}
	if err := rows.Err(); err != nil || len(entries) == 0 {
		return 0, mapErr(err, "")
	}
	page := booking.NewEventPage(entries)
	n, perr := 0, error(nil)
	if len(page.Events) > 0 {
		n, perr = publish(page.Events)
	}
	if last := page.Through(n); last > 0 {
		err := s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE event_cursor SET after_id = ?1 WHERE id = 1`, last)
			return err
		})
		if err != nil {
			return 0, mapErr(err, "")
		}
	}
	return n, perr
}

// relayOutbox publishes up to limit of the events an earlier version left
// in outbox_events, in id order, and deletes the prefix publish
// confirmed; more says it found some (the log waits until none is left).
func (s *Store) relayOutbox(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (n int, more bool, err error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, type, appointment_id, slot_id, patient_id, status, coalesce(suspension_id, 0), hold_expires_at, occurred_at
		FROM outbox_events ORDER BY id LIMIT ?1`, limit)
	if err != nil {
		return 0, false, err
	}
	var evs []booking.Event
	for rows.Next() {
		var e booking.Event
		var at int64
		var hold sql.NullInt64
		if err := rows.Scan(&e.ID, &e.Type, &e.AppointmentID, &e.SlotID, &e.PatientID, &e.Status, &e.SuspensionID, &hold, &at); err != nil {
			rows.Close()
			return 0, false, err
		}
		e.Time = fromTS(at)
		if hold.Valid {
			t := fromTS(hold.Int64)
			e.HoldExpiresAt = &t
		}
		evs = append(evs, e)
	}
	if err := rows.Close(); err != nil {
		return 0, false, err
	}
	if err := rows.Err(); err != nil || len(evs) == 0 {
		return 0, false, err
	}
	n, perr := publish(evs)
	if n > 0 {
		err := s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM outbox_events WHERE id BETWEEN ?1 AND ?2`, evs[0].ID, evs[n-1].ID)
			return err
		})
		if err != nil {
			return 0, true, err
		}
	}
	return n, true, perr
}

// EventBacklog counts the entries of appointments not yet relayed (and
// what an earlier version left in its outbox); 0 before a relay started.
func (s *Store) EventBacklog(ctx context.Context) (int64, error) {
	var n int64
	err := s.reader.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM outbox_events) + (SELECT count(*)
		FROM event_cursor c JOIN audit_log a ON a.id > c.after_id AND a.entity = 'appointment' WHERE c.id = 1)`).Scan(&n)
	return n, mapErr(err, "")
}
