package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/slotd/slotd/booking"
)

// walkInReadSQL reads, for walk-in ?1 (slot) by ?2 (patient),
// what DecideWalkIn needs beyond the slot and its doctor: the clinic's
// walk-ins per slot, the slot's allowance and active walk-ins (through
// appointments_walk_in_active), whether the patient exists and is
// active, holds a place here, or one overlapping it (?3 end, ?4 start).
const walkInReadSQL = `SELECT
	(SELECT walk_ins_per_slot FROM clinic_policy WHERE id = 1),
	(SELECT walk_ins FROM slots WHERE id = ?1),
	(SELECT count(*) FROM appointments WHERE slot_id = ?1 AND status IN ` + booking.ActiveSQL + ` AND walk_in),
	(SELECT active FROM patients WHERE id = ?2),
	EXISTS (SELECT 1 FROM appointments WHERE slot_id = ?1 AND patient_id = ?2 AND status IN ` + booking.ActiveSQL + `),
	EXISTS (SELECT 1 FROM appointments o WHERE o.patient_id = ?2 AND o.status IN ` + booking.ActiveSQL + `
	         AND o.round_id IS NULL AND o.slot_id <> ?1 AND o.start_at < ?3 AND o.end_at > ?4)`

// WalkIn adds walk-in r to its full slot (booking.DecideWalkIn) in one
// write transaction: the reads, the decision, the new place (the counter
// and the allowance in one conditional update, the insert), its audit
// entry and its confirmation.
func (s *Store) WalkIn(ctx context.Context, r booking.WalkInRequest, now time.Time) (a booking.Appointment, replay bool, err error) {
	now = micro(now)
	err = s.write(ctx, func(tx *sql.Tx) error {
		sl, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, r.SlotID))
		if err != nil {
			return err
		}
		rd := booking.WalkInReads{Slot: sl}
		if rd.Doctor, err = scanDoctor(tx.QueryRowContext(ctx, `SELECT `+doctorCols+` FROM resources WHERE id = ?`, sl.DoctorID)); err != nil {
			return err
		}
		existing, err := scanAppt(tx.QueryRowContext(ctx, `SELECT `+apptCols+apptFrom+`WHERE a.patient_id = ? AND a.idempotency_key = ?`,
			r.PatientID, r.Key))
		switch {
		case err == nil:
			rd.Existing = &existing
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var active sql.NullBool
		if err := tx.QueryRowContext(ctx, walkInReadSQL, sl.ID, r.PatientID, ts(sl.EndAt), ts(sl.StartAt)).Scan(
			&rd.Policy.WalkInsPerSlot, &rd.Allowance, &rd.WalkIns, &active, &rd.ActiveHere, &rd.Overlapping); err != nil {
			return err
		}
		var terr error
		if rd.Taken = slices.Collect(takenNumbers(ctx, tx, sl.ID, &terr)); terr != nil {
			return terr
		}
		if active.Valid {
			rd.Patient = &booking.Patient{ID: r.PatientID, Active: active.Bool}
		}
		d, err := booking.DecideWalkIn(r, rd, now)
		if err != nil || d.Replay {
			a, replay = d.Appointment, d.Replay
			return err
		}
		a = d.Appointment
		res, err := tx.ExecContext(ctx, `UPDATE slots SET booked_count = booked_count + 1, walk_ins = ?2
			WHERE id = ?1 AND booked_count = ?3`, sl.ID, d.Allowance, sl.BookedCount)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return errors.New("sqlite: a walk-in's slot changed under the write lock")
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
				idempotency_key, fingerprint, created_at, updated_at, walk_in, walk_in_reason)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, 1, ?10)
			RETURNING id`, sl.ID, r.PatientID, string(a.Status), a.QueueNumber, ts(a.StartAt), ts(a.EndAt), a.IdempotencyKey, a.Fingerprint,
			ts(now), a.WalkInReason).Scan(&a.ID); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: booking.AuditWalkIn, Appointment: a})); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyConfirmation, AppointmentID: a.ID}})
	})
	if err != nil {
		return booking.Appointment{}, false, mapErr(err, "slot")
	}
	return a, replay, nil
}
