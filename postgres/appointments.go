package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// sqlCancel cancels and releases the place in one statement (so one
// implicit transaction): the appointment's row lock makes a concurrent second
// cancel wait and then match nothing, so the place is released once.
const sqlCancel = `WITH a AS (
		UPDATE appointments SET status = 'CANCELLED', updated_at = $3
		WHERE id = $1 AND status = ANY($4::text[]) AND start_at > $3 AND ($2::bigint = 0 OR patient_id = $2)
		RETURNING *),
	s AS (
		UPDATE slots SET booked_count = booked_count - 1 FROM a WHERE slots.id = a.slot_id
		RETURNING slots.resource_id)
	SELECT ` + apptColumns + ` FROM a, s`

// Cancel moves an active appointment to CANCELLED and releases its place,
// once. Cancelling a cancelled appointment returns it unchanged; another
// patient's appointment (patientID != 0) is not found; one that has started
// cannot be cancelled.
func (s *Store) Cancel(ctx context.Context, appointmentID, patientID int64, now time.Time) (booking.Appointment, error) {
	now = now.UTC().Truncate(time.Microsecond)
	from := booking.Sources(booking.StatusCancelled)
	sources := make([]string, len(from))
	for i, st := range from {
		sources[i] = string(st)
	}
	a, err := scanAppointment(s.pool.QueryRow(ctx, sqlCancel, appointmentID, patientID, now, sources))
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return booking.Appointment{}, translate(err, "")
	}
	// Nothing changed: tell why from the row as it is now.
	a, err = s.GetAppointment(ctx, appointmentID)
	if err != nil {
		return booking.Appointment{}, err
	}
	switch {
	case patientID != 0 && a.PatientID != patientID:
		return booking.Appointment{}, booking.NotFound("appointment")
	case a.Status == booking.StatusCancelled:
		return a, nil
	case booking.CanTransition(a.Status, booking.StatusCancelled) && !now.Before(a.StartAt):
		return booking.Appointment{}, booking.Errorf(booking.CodeAlreadyStarted, "the appointment has already started")
	}
	return booking.Appointment{}, booking.Errorf(booking.CodeInvalidTransition, "a %s appointment cannot be cancelled", a.Status)
}

// GetAppointment returns one appointment.
func (s *Store) GetAppointment(ctx context.Context, id int64) (booking.Appointment, error) {
	a, err := scanAppointment(s.pool.QueryRow(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id WHERE a.id = $1`, id))
	return a, translate(err, "appointment")
}

// ListAppointments lists a patient's appointments, newest first, only those
// in status unless it is empty.
func (s *Store) ListAppointments(ctx context.Context, patientID int64, status booking.Status) ([]booking.Appointment, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
		 WHERE a.patient_id = $1 AND ($2::text = '' OR a.status = $2) ORDER BY a.id DESC`, patientID, string(status))
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	return as, translate(err, "")
}

// FindByKey returns the appointment made by a patient's Idempotency-Key,
// through appointments_patient_key_key.
func (s *Store) FindByKey(ctx context.Context, patientID int64, key string) (booking.Appointment, error) {
	a, err := scanAppointment(s.pool.QueryRow(ctx,
		`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
		 WHERE a.patient_id = $1 AND a.idempotency_key = $2`, patientID, key))
	return a, translate(err, "appointment")
}
