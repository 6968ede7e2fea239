package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const (
	// sqlWalkInSlot locks the walk-in's slot (the first lock of the lock
	// order) and reads its allowance with it.
	sqlWalkInSlot = `SELECT ` + slotColumns + `, walk_ins FROM slots WHERE id = $1 FOR UPDATE`
	// sqlWalkInReads reads, after the lock, what DecideWalkIn needs beyond
	// the slot and its doctor: the clinic's walk-ins per slot, the slot's
	// active walk-ins, whether patient $2 exists and is active, holds a
	// place here, or one overlapping it ($3 start, $4 end).
	sqlWalkInReads = `SELECT
		(SELECT walk_ins_per_slot FROM clinic_policy WHERE id = 1),
		(SELECT count(*) FROM appointments WHERE slot_id = $1 AND status IN ` + booking.ActiveSQL + ` AND walk_in)::integer,
		(SELECT active FROM patients WHERE id = $2),
		EXISTS (SELECT 1 FROM appointments WHERE slot_id = $1 AND patient_id = $2 AND status IN ` + booking.ActiveSQL + `),
		EXISTS (SELECT 1 FROM appointments o WHERE o.patient_id = $2 AND o.status IN ` + booking.ActiveSQL + `
		         AND o.round_id IS NULL AND o.slot_id <> $1 AND o.start_at < $4 AND o.end_at > $3)`
	// sqlWalkInTaken lists the queue numbers of the slot's active
	// appointments.
	sqlWalkInTaken = `SELECT queue_no FROM appointments WHERE slot_id = $1 AND status IN ` + booking.ActiveSQL + ` ORDER BY queue_no`
	// sqlWalkInTake takes the place and raises the allowance in one
	// conditional update, and inserts the appointment.
	sqlWalkInTake = `WITH u AS (
			UPDATE slots SET booked_count = booked_count + 1, walk_ins = $3 WHERE id = $1 AND booked_count = $4
			RETURNING id, start_at, end_at),
		a AS (
			INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
				idempotency_key, fingerprint, created_at, updated_at, walk_in, walk_in_reason)
			SELECT u.id, $2, ` + booking.StatusBookedSQL + `, $9, u.start_at, u.end_at, $5, $6, $7, $7, true, $8 FROM u
			RETURNING *)
		SELECT ` + apptColumns + ` FROM a JOIN slots s ON s.id = a.slot_id`
)

// WalkIn adds walk-in r to its full slot (booking.DecideWalkIn) in one
// transaction under the slot's lock: the reads, the decision, the new place
// (counter and allowance by one conditional update, the insert), its audit
// entry and its confirmation.
func (s *Store) WalkIn(ctx context.Context, r booking.WalkInRequest, now time.Time) (a booking.Appointment, replay bool, err error) {
	now = now.UTC().Truncate(time.Microsecond)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var rd booking.WalkInReads
		sl := &rd.Slot
		err := tx.QueryRow(ctx, sqlWalkInSlot, r.SlotID).Scan(&sl.ID, &sl.DoctorID, &sl.ScheduleID, &sl.StartAt, &sl.EndAt,
			&sl.Capacity, &sl.BookedCount, &sl.OpensAt, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &sl.RoundID, &rd.Allowance)
		if errors.Is(err, pgx.ErrNoRows) {
			return booking.NotFound("slot")
		} else if err != nil {
			return err
		}
		sl.StartAt, sl.EndAt, sl.OpensAt = sl.StartAt.UTC(), sl.EndAt.UTC(), sl.OpensAt.UTC()
		if rd.Doctor, err = scanDoctor(tx.QueryRow(ctx, `SELECT `+doctorColumns+` FROM resources WHERE id = $1`, sl.DoctorID)); err != nil {
			return err
		}
		switch existing, err := scanAppointment(tx.QueryRow(ctx, sqlVisitKey, r.PatientID, r.Key)); {
		case err == nil:
			rd.Existing = &existing
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		var active *bool
		if err := tx.QueryRow(ctx, sqlWalkInReads, sl.ID, r.PatientID, sl.StartAt, sl.EndAt).Scan(
			&rd.Policy.WalkInsPerSlot, &rd.WalkIns, &active, &rd.ActiveHere, &rd.Overlapping); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, sqlWalkInTaken, sl.ID)
		if rd.Taken, err = pgx.CollectRows(rows, pgx.RowTo[int]); err != nil {
			return err
		}
		if active != nil {
			rd.Patient = &booking.Patient{ID: r.PatientID, Active: *active}
		}
		d, err := booking.DecideWalkIn(r, rd, now)
		if err != nil || d.Replay {
			a, replay = d.Appointment, d.Replay
			return err
		}
		if a, err = scanAppointment(tx.QueryRow(ctx, sqlWalkInTake, sl.ID, r.PatientID, d.Allowance, sl.BookedCount,
			d.Appointment.IdempotencyKey, d.Appointment.Fingerprint, now, d.Appointment.WalkInReason, d.Appointment.QueueNumber)); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: booking.AuditWalkIn, Appointment: a})); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyConfirmation, AppointmentID: a.ID}})
	})
	if err != nil {
		return booking.Appointment{}, false, translate(err, "slot")
	}
	return a, replay, nil
}
