package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
)

// Reschedule moves an appointment to another slot in one write
// transaction, as booking.DecideReschedule decides from what it reads
// there. The single writer (BEGIN IMMEDIATE) stands in for PostgreSQL's
// locks of both slots: nothing else writes between the reads and the
// writes, so there is no order to get wrong.
func (s *Store) Reschedule(ctx context.Context, r booking.RescheduleRequest, now time.Time) (booking.RescheduleResult, error) {
	now = micro(now)
	var d booking.RescheduleDecision
	err := s.write(ctx, func(tx *sql.Tx) error {
		rd, err := readReschedule(ctx, tx, r)
		if err != nil {
			return err
		}
		d = booking.DecideReschedule(r, rd, now)
		if d.Err != nil || d.Replayed {
			return nil
		}
		a := rd.Appointment
		// The new place is taken before the old one is released.
		for i, w := range []struct {
			q    string
			args []any
		}{
			{`UPDATE slots SET booked_count = booked_count + 1 WHERE id = ? AND booked_count < capacity`, []any{r.SlotID}},
			{`UPDATE appointments SET slot_id = ?, queue_no = ?, start_at = ?, end_at = ?, updated_at = ? WHERE id = ? AND status = ?`,
				[]any{r.SlotID, d.Queue, ts(rd.To.StartAt), ts(rd.To.EndAt), ts(now), a.ID, string(a.Status)}},
			{`UPDATE slots SET booked_count = booked_count - 1 WHERE id = ?`, []any{a.SlotID}},
			{`INSERT INTO reschedules (patient_id, idempotency_key, fingerprint, appointment_id, from_slot_id, to_slot_id, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, []any{a.PatientID, r.IdempotencyKey, r.Fingerprint, a.ID, a.SlotID, r.SlotID, ts(now)}},
		} {
			res, err := tx.ExecContext(ctx, w.q, w.args...)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return fmt.Errorf("sqlite: reschedule of appointment %d: write %d changed %d rows", a.ID, i, n)
			}
		}
		if err := s.reserve(ctx, tx, map[int64]int{a.SlotID: 1}, now); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditReschedule(ctx, now, a.SlotID, d.Appointment)); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{d.Notification})
	})
	if err != nil {
		return booking.RescheduleResult{}, mapErr(err, "")
	}
	return d.RescheduleResult, d.Err
}

// readReschedule reads what DecideReschedule needs, inside the write
// transaction.
func readReschedule(ctx context.Context, tx *sql.Tx, r booking.RescheduleRequest) (rd booking.RescheduleReads, err error) {
	a, err := getAppt(ctx, tx, r.AppointmentID)
	if errors.Is(err, sql.ErrNoRows) {
		return rd, nil
	}
	if err != nil {
		return rd, err
	}
	rd.Appointment = &a
	var fp string
	var id int64
	switch err = tx.QueryRowContext(ctx, `SELECT fingerprint, appointment_id FROM reschedules
		WHERE patient_id = ? AND idempotency_key = ?`, a.PatientID, r.IdempotencyKey).Scan(&fp, &id); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return rd, err
	default:
		rep := a
		if id != a.ID {
			if rep, err = getAppt(ctx, tx, id); err != nil {
				return rd, err
			}
		}
		rd.Replay, rd.ReplayFingerprint = &rep, fp
	}
	from, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, a.SlotID))
	if err != nil {
		return rd, err
	}
	rd.From = &from
	switch to, e := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, r.SlotID)); {
	case errors.Is(e, sql.ErrNoRows):
		return rd, nil
	case e != nil:
		return rd, e
	default:
		rd.To = &to
	}
	if err = tx.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM appointments WHERE slot_id = ?1 AND patient_id = ?2 AND status IN `+booking.ActiveSQL+`),
		EXISTS (SELECT 1 FROM appointments WHERE patient_id = ?2 AND id <> ?3 AND slot_id <> ?1 AND round_id IS NULL
			AND status IN `+booking.ActiveSQL+` AND start_at < ?5 AND end_at > ?4)`,
		r.SlotID, a.PatientID, a.ID, ts(rd.To.StartAt), ts(rd.To.EndAt)).Scan(&rd.HoldsTo, &rd.Overlapping); err != nil {
		return rd, err
	}
	for q := range takenNumbers(ctx, tx, r.SlotID, &err) {
		rd.Taken = append(rd.Taken, q)
	}
	if err != nil {
		return rd, err
	}
	pol, err := slotPolicy(ctx, tx, a.SlotID)
	rd.Cutoff = time.Duration(pol.CancelCutoffHours) * time.Hour
	return rd, err
}
