package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const (
	sqlApptSlot = `SELECT slot_id, patient_id FROM appointments WHERE id = $1`
	// sqlLockTwoSlots locks both slots in id order: two reschedules between
	// the same slots (in either direction) queue instead of deadlocking.
	sqlLockTwoSlots     = `SELECT id FROM slots WHERE id = ANY($1) ORDER BY id FOR UPDATE`
	sqlRescheduleReplay = `SELECT r.fingerprint, ` + apptColumns + ` FROM reschedules r
		JOIN appointments a ON a.id = r.appointment_id JOIN slots s ON s.id = a.slot_id
		WHERE r.patient_id = $1 AND r.idempotency_key = $2`
	sqlSlotByID = `SELECT ` + slotColumns + ` FROM slots WHERE id = $1`
	// sqlRescheduleConflicts: does the patient hold a place in the target,
	// or another active appointment (not the one moved) overlapping it?
	sqlRescheduleConflicts = `SELECT
		EXISTS (SELECT 1 FROM appointments WHERE slot_id = $1 AND patient_id = $2 AND status IN ` + booking.ActiveSQL + `),
		EXISTS (SELECT 1 FROM appointments a JOIN slots t ON t.id = $1
			WHERE a.patient_id = $2 AND a.id <> $3 AND a.slot_id <> $1 AND a.round_id IS NULL
			  AND a.status IN ` + booking.ActiveSQL + ` AND a.start_at < t.end_at AND a.end_at > t.start_at)`
	sqlTakenNumbers = `SELECT COALESCE(array_agg(queue_no), '{}') FROM appointments WHERE slot_id = $1 AND status IN ` + booking.ActiveSQL
	// The writes, in the order the issue asks: the new place is taken
	// before the old one is released.
	sqlTakeOne  = `UPDATE slots SET booked_count = booked_count + 1 WHERE id = $1 AND booked_count < capacity`
	sqlMoveAppt = `UPDATE appointments a SET slot_id = t.id, queue_no = $2, start_at = t.start_at, end_at = t.end_at, updated_at = $3
		FROM slots t WHERE a.id = $1 AND t.id = $4 AND a.status = $5`
	sqlReleaseOne       = `UPDATE slots SET booked_count = booked_count - 1 WHERE id = $1`
	sqlInsertReschedule = `INSERT INTO reschedules (patient_id, idempotency_key, fingerprint, appointment_id, from_slot_id, to_slot_id, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`
)

// Reschedule moves an appointment to another slot in one transaction, as
// booking.DecideReschedule decides from what it reads under both slots'
// locks (taken in id order, after which the appointment is read again: a
// concurrent reschedule may have moved it, and then the locks are retaken).
func (s *Store) Reschedule(ctx context.Context, r booking.RescheduleRequest, now time.Time) (booking.RescheduleResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var d booking.RescheduleDecision
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var from, patient int64
		switch err := tx.QueryRow(ctx, sqlApptSlot, r.AppointmentID).Scan(&from, &patient); {
		case errors.Is(err, pgx.ErrNoRows):
			d = booking.DecideReschedule(r, booking.RescheduleReads{}, now)
			return nil
		case err != nil:
			return err
		}
		for attempt := 0; ; attempt++ {
			rows, _ := tx.Query(ctx, sqlLockTwoSlots, []int64{from, r.SlotID})
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			a, err := scanAppointment(tx.QueryRow(ctx, sqlApptForUpdate, r.AppointmentID))
			if err != nil {
				return err
			}
			if a.SlotID != from && attempt < 3 {
				from = a.SlotID // moved meanwhile: lock where it is now
				continue
			} else if a.SlotID != from {
				return fmt.Errorf("postgres: appointment %d keeps moving", a.ID)
			}
			rd, err := readReschedule(ctx, tx, r, a, patient)
			if err != nil {
				return err
			}
			d = booking.DecideReschedule(r, rd, now)
			if d.Err != nil || d.Replayed {
				return nil
			}
			return s.writeReschedule(ctx, tx, r, a, d, now)
		}
	})
	if err != nil {
		if e := booking.ConstraintError(constraintOf(err), r.SlotID); e != nil {
			return booking.RescheduleResult{}, e
		}
		return booking.RescheduleResult{}, translate(err, "")
	}
	return d.RescheduleResult, d.Err
}

// readReschedule reads, in one pipeline, what DecideReschedule needs.
func readReschedule(ctx context.Context, tx pgx.Tx, r booking.RescheduleRequest, a booking.Appointment, patient int64) (rd booking.RescheduleReads, err error) {
	rd.Appointment = &a
	b := &pgx.Batch{}
	b.Queue(sqlRescheduleReplay, patient, r.IdempotencyKey)
	b.Queue(sqlSlotByID, a.SlotID)
	b.Queue(sqlSlotByID, r.SlotID)
	b.Queue(sqlRescheduleConflicts, r.SlotID, patient, a.ID)
	b.Queue(sqlTakenNumbers, r.SlotID)
	b.Queue(sqlSlotPolicy, a.SlotID)
	br := tx.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	var fp string
	var rep booking.Appointment
	row := br.QueryRow()
	switch err = row.Scan(append([]any{&fp}, apptScanTargets(&rep)...)...); {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return
	default:
		utcAppointment(&rep)
		rd.Replay, rd.ReplayFingerprint = &rep, fp
	}
	fromSlot, err := scanSlot(br.QueryRow())
	if err != nil {
		return
	}
	rd.From = &fromSlot
	switch to, e := scanSlot(br.QueryRow()); {
	case errors.Is(e, pgx.ErrNoRows):
	case e != nil:
		return rd, e
	default:
		rd.To = &to
	}
	if err = br.QueryRow().Scan(&rd.HoldsTo, &rd.Overlapping); err != nil {
		return
	}
	var taken []int32
	if err = br.QueryRow().Scan(&taken); err != nil {
		return
	}
	for _, q := range taken {
		rd.Taken = append(rd.Taken, int(q))
	}
	pol, err := scanPolicy(br.QueryRow())
	if err != nil {
		return
	}
	rd.Cutoff = time.Duration(pol.CancelCutoffHours) * time.Hour
	return rd, nil
}

// writeReschedule performs d: take the new place, move the row, release
// the old place, remember the key, announce the move.
func (s *Store) writeReschedule(ctx context.Context, tx pgx.Tx, r booking.RescheduleRequest, a booking.Appointment, d booking.RescheduleDecision, now time.Time) error {
	b := &pgx.Batch{}
	b.Queue(sqlTakeOne, r.SlotID)
	b.Queue(sqlMoveAppt, a.ID, d.Queue, now, r.SlotID, string(a.Status))
	b.Queue(sqlReleaseOne, a.SlotID)
	b.Queue(sqlInsertReschedule, a.PatientID, r.IdempotencyKey, r.Fingerprint, a.ID, a.SlotID, r.SlotID, now)
	br := tx.SendBatch(ctx, b)
	for i := 0; i < 4; i++ {
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return err
		}
		if tag.RowsAffected() != 1 {
			br.Close()
			// The rows are locked and the decision saw room: a bug.
			return fmt.Errorf("postgres: reschedule of appointment %d: write %d changed %d rows", a.ID, i, tag.RowsAffected())
		}
	}
	if err := br.Close(); err != nil {
		return err
	}
	if err := s.reserve(ctx, tx, map[int64]int{a.SlotID: 1}, now); err != nil {
		return err
	}
	if err := writeAudit(ctx, tx, booking.AuditReschedule(ctx, now, a.SlotID, d.Appointment)); err != nil {
		return err
	}
	return s.notify(ctx, tx, []booking.Notification{d.Notification})
}

// apptScanTargets are scanAppointment's destinations, for a row that
// carries an appointment after other columns.
func apptScanTargets(a *booking.Appointment) []any {
	return []any{&a.ID, &a.SlotID, &a.DoctorID, &a.PatientID, &a.Status, &a.QueueNumber, &a.StartAt, &a.EndAt,
		&a.HoldExpiresAt, &a.CreatedAt, &a.UpdatedAt, &a.IdempotencyKey, &a.Fingerprint, &a.RoundID, &a.ServiceID}
}
