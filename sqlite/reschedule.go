package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
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
		return s.writeReschedule(ctx, tx, r, rd.Appointment, d, now)
	})
	if err != nil {
		return booking.RescheduleResult{}, mapErr(err, "")
	}
	return d.RescheduleResult, d.Err
}

// writeReschedule performs d: the new places taken before the old ones
// are released, the row moved, a visit's further places replaced, the
// key remembered, the released places offered, the move audited and
// announced.
func (s *Store) writeReschedule(ctx context.Context, tx *sql.Tx, r booking.RescheduleRequest, a *booking.Appointment,
	d booking.RescheduleDecision, now time.Time) error {
	m := d.Appointment
	type write struct {
		q    string
		args []any
	}
	var ws []write
	for _, id := range d.Take {
		ws = append(ws, write{`UPDATE slots SET booked_count = booked_count + 1 WHERE id = ? AND booked_count < capacity`, []any{id}})
	}
	ws = append(ws, write{`UPDATE appointments SET slot_id = ?, queue_no = ?, start_at = ?, end_at = ?, updated_at = ? WHERE id = ? AND status = ?`,
		[]any{r.SlotID, d.Queue, ts(m.StartAt), ts(m.EndAt), ts(now), a.ID, string(a.Status)}})
	for _, id := range d.Released {
		ws = append(ws, write{`UPDATE slots SET booked_count = booked_count - 1 WHERE id = ?`, []any{id}})
	}
	ws = append(ws, write{`INSERT INTO reschedules (patient_id, idempotency_key, fingerprint, appointment_id, from_slot_id, to_slot_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, []any{a.PatientID, r.IdempotencyKey, r.Fingerprint, a.ID, a.SlotID, r.SlotID, ts(now)}})
	for i, w := range ws {
		res, err := tx.ExecContext(ctx, w.q, w.args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("sqlite: reschedule of appointment %d: write %d changed %d rows", a.ID, i, n)
		}
	}
	if a.ServiceID != 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM appointment_places WHERE appointment_id = ?`, a.ID); err != nil {
			return err
		}
		for _, id := range d.Extra {
			if _, err := tx.ExecContext(ctx, `INSERT INTO appointment_places (appointment_id, slot_id) VALUES (?, ?)`, a.ID, id); err != nil {
				return err
			}
		}
	}
	released := map[int64]int{}
	for _, id := range d.Released {
		released[id] = 1
	}
	if err := s.reserve(ctx, tx, released, now); err != nil {
		return err
	}
	if err := writeAudit(ctx, tx, booking.AuditReschedule(ctx, now, a.SlotID, d.Appointment)); err != nil {
		return err
	}
	return s.notify(ctx, tx, []booking.Notification{d.Notification})
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
	toRun, end := []int64{r.SlotID}, rd.To.EndAt
	if a.ServiceID != 0 {
		if err := readVisitMove(ctx, tx, &rd); err != nil {
			return rd, err
		}
		toRun, end = nil, rd.To.StartAt
		if rd.Service != nil {
			end = end.Add(time.Duration(rd.Service.Minutes) * time.Minute)
		}
		for _, sl := range rd.ToRun {
			toRun = append(toRun, sl.ID)
		}
	}
	j, _ := json.Marshal(toRun)
	if err = tx.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM appointments WHERE slot_id IN (SELECT value FROM json_each(?1)) AND patient_id = ?2 AND id <> ?3
			AND status IN `+booking.ActiveSQL+`),
		EXISTS (SELECT 1 FROM appointments WHERE patient_id = ?2 AND id <> ?3 AND slot_id <> ?6 AND round_id IS NULL
			AND status IN `+booking.ActiveSQL+` AND start_at < ?5 AND end_at > ?4)`,
		string(j), a.PatientID, a.ID, ts(rd.To.StartAt), ts(end), r.SlotID).Scan(&rd.HoldsTo, &rd.Overlapping); err != nil {
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

// readVisitMove reads, for a visit, its service, the further places it
// holds and the run it would take from To (visitRunSQL).
func readVisitMove(ctx context.Context, tx *sql.Tx, rd *booking.RescheduleReads) error {
	a := rd.Appointment
	rows, err := tx.QueryContext(ctx, `SELECT slot_id FROM appointment_places WHERE appointment_id = ? ORDER BY slot_id`, a.ID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		rd.Places = append(rd.Places, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	svc, err := scanService(tx.QueryRowContext(ctx, `SELECT `+serviceCols+` FROM services WHERE id = ?`, a.ServiceID))
	if err != nil {
		return err
	}
	rd.Service = &svc
	span := time.Duration(svc.Minutes) * time.Minute
	if rows, err = tx.QueryContext(ctx, visitRunSQL, rd.To.ID, span.Microseconds(), booking.MaxVisitSlots+1); err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		sl, err := scanSlot(rows)
		if err != nil {
			return err
		}
		rd.ToRun = append(rd.ToRun, sl)
	}
	return rows.Err()
}
