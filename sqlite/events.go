package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/slotd/slotd/booking"
)

const sqlInsertEvent = `INSERT INTO outbox_events (type, appointment_id, slot_id, patient_id, status, suspension_id, hold_expires_at, occurred_at)
	SELECT ?1, id, slot_id, patient_id, status, NULLIF(?2, 0), CASE WHEN status = ` + booking.StatusHeldSQL + ` THEN hold_expires_at END, updated_at
	FROM appointments WHERE id = ?3`

// writeEvents writes ns's events inside tx when the outbox is on.
func (s *Store) writeEvents(ctx context.Context, tx *sql.Tx, ns []booking.Notification) error {
	if !s.events || len(ns) == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, sqlInsertEvent)
	if err != nil {
		return fmt.Errorf("sqlite: write events: %w", err)
	}
	defer st.Close()
	for _, n := range ns {
		t := booking.EventType(n.Kind)
		if t == "" {
			continue // no state change of an appointment (a job)
		}
		if _, err := st.ExecContext(ctx, t, n.SuspensionID, n.AppointmentID); err != nil {
			return fmt.Errorf("sqlite: write events: %w", err)
		}
	}
	return nil
}

// relayMu makes one relay publish at a time: one process owns a SQLite
// file, so a process-wide lock is the cluster-wide one.
var relayMu sync.Mutex

// RelayEvents publishes up to limit of the oldest events through publish
// and deletes the prefix it confirmed (postgres.Store.RelayEvents).
func (s *Store) RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error) {
	relayMu.Lock()
	defer relayMu.Unlock()
	rows, err := s.reader.QueryContext(ctx, `SELECT id, type, appointment_id, slot_id, patient_id, status, coalesce(suspension_id, 0), hold_expires_at, occurred_at
		FROM outbox_events ORDER BY id LIMIT ?1`, limit)
	if err != nil {
		return 0, mapErr(err, "")
	}
	var evs []booking.Event
	for rows.Next() {
		var e booking.Event
		var at int64
		var hold sql.NullInt64
		if err := rows.Scan(&e.ID, &e.Type, &e.AppointmentID, &e.SlotID, &e.PatientID, &e.Status, &e.SuspensionID, &hold, &at); err != nil {
			rows.Close()
			return 0, mapErr(err, "")
		}
		e.Time = fromTS(at)
		if hold.Valid {
			t := fromTS(hold.Int64)
			e.HoldExpiresAt = &t
		}
		evs = append(evs, e)
	}
	if err := rows.Close(); err != nil {
		return 0, mapErr(err, "")
	}
	if err := rows.Err(); err != nil || len(evs) == 0 {
		return 0, mapErr(err, "")
	}
	n, perr := publish(evs)
	if n > 0 {
		err := s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM outbox_events WHERE id BETWEEN ?1 AND ?2`, evs[0].ID, evs[n-1].ID)
			return err
		})
		if err != nil {
			return 0, mapErr(err, "")
		}
	}
	return n, perr
}

// EventBacklog counts the events not yet published.
func (s *Store) EventBacklog(ctx context.Context) (int64, error) {
	var n int64
	err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM outbox_events`).Scan(&n)
	return n, mapErr(err, "")
}
