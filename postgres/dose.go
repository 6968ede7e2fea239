package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const (
	// sqlLockNextDoseSlots locks the booking's slots and the next dose's,
	// in id order as BookSeries and a dose's cancel take them: a cancel of
	// the dose before waits for the next dose, or the next dose reads it
	// cancelled.
	sqlLockNextDoseSlots = `SELECT id FROM slots WHERE id = $2 OR id IN (SELECT a.slot_id FROM series_doses d
		JOIN appointments a ON a.id = d.appointment_id WHERE d.booking_id = $1) ORDER BY id FOR UPDATE`
	sqlSeriesBookingByID = `SELECT id, series_id, patient_id, idempotency_key, fingerprint, created_at
		FROM series_bookings WHERE id = $1`
	sqlApptByKey = `SELECT ` + apptColumns + ` FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.patient_id = $1 AND a.idempotency_key = $2`
	sqlInsertNextDose = `INSERT INTO series_doses (booking_id, dose_no, appointment_id) VALUES ($1, $2, $3)`
)

// BookNextDose books the next dose of a series booking in one
// transaction: the booking's slots and the dose's locked in id order,
// booking.DecideNextDose, the dose decided by decideInTx, then its link; a
// refused dose rolls everything back. A deadlock is tried again, and so
// is the same key committed meanwhile (then answered as its retry).
func (s *Store) BookNextDose(ctx context.Context, r booking.NextDoseRequest, now time.Time) (booking.SeriesResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	return s.seriesTx(ctx, func(tx pgx.Tx) (booking.SeriesResult, error, error) { return s.bookNextDoseIn(ctx, tx, r, now) }, "")
}

// bookNextDoseIn decides and writes r inside tx; refusal is the answer of
// a dose refused, after which tx must be rolled back.
func (s *Store) bookNextDoseIn(ctx context.Context, tx pgx.Tx, r booking.NextDoseRequest, now time.Time) (res booking.SeriesResult, refusal, err error) {
	rd, err := readNextDose(ctx, tx, r)
	if err != nil {
		return res, nil, err
	}
	plan := booking.DecideNextDose(r, rd)
	switch {
	case plan.Err != nil:
		return res, plan.Err, nil
	case plan.Replay:
		sb, err := seriesBookingIn(ctx, tx, r.BookingID)
		return booking.SeriesResult{Booking: sb, Replayed: true}, nil, err
	}
	out, err := s.decideInTx(ctx, tx, r.SlotID, []booking.BookRequest{plan.Request}, now)
	if err != nil {
		if e := booking.ConstraintError(constraintOf(err), r.SlotID); e != nil && constraintOf(err) != booking.ConPatientKey {
			return res, e, nil
		}
		return res, nil, err
	}
	if out[0].Err != nil {
		return res, out[0].Err, nil
	}
	if out[0].Replayed {
		// Made outside this booking: the replay read found none of its own.
		return res, booking.KeyReused(r.SlotID), nil
	}
	if _, err := tx.Exec(ctx, sqlInsertNextDose, r.BookingID, plan.Dose, out[0].Appointment.ID); err != nil {
		return res, nil, err
	}
	sb, err := seriesBookingIn(ctx, tx, r.BookingID)
	return booking.SeriesResult{Booking: sb}, nil, err
}

// readNextDose reads what DecideNextDose needs, locking the slots first
// so that the reads after them see what the locks' previous holders
// committed.
func readNextDose(ctx context.Context, tx pgx.Tx, r booking.NextDoseRequest) (booking.NextDoseReads, error) {
	var rd booking.NextDoseReads
	if _, err := tx.Exec(ctx, sqlLockNextDoseSlots, r.BookingID, r.SlotID); err != nil {
		return rd, err
	}
	switch a, err := scanAppointment(tx.QueryRow(ctx, sqlApptByKey, r.PatientID, r.IdempotencyKey)); {
	case err == nil:
		rd.Replay = &a
		return rd, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return rd, err
	}
	switch sb, err := seriesBookingIn(ctx, tx, r.BookingID); {
	case errors.Is(err, pgx.ErrNoRows):
		return rd, nil
	case err != nil:
		return rd, err
	default:
		rd.Booking = &sb
	}
	switch ds, err := scanDoseSeries(tx.QueryRow(ctx, sqlDoseSeriesByID, rd.Booking.SeriesID)); {
	case err == nil:
		rd.Series = &ds
	case !errors.Is(err, pgx.ErrNoRows):
		return rd, err
	}
	switch sl, err := scanSlot(tx.QueryRow(ctx, sqlSlotByID, r.SlotID)); {
	case err == nil:
		rd.Slot = &sl
	case !errors.Is(err, pgx.ErrNoRows):
		return rd, err
	}
	return rd, nil
}

// seriesBookingIn reads booking id with its appointments in dose order.
func seriesBookingIn(ctx context.Context, tx pgx.Tx, id int64) (booking.SeriesBooking, error) {
	var sb booking.SeriesBooking
	if err := tx.QueryRow(ctx, sqlSeriesBookingByID, id).Scan(&sb.ID, &sb.SeriesID, &sb.PatientID,
		&sb.IdempotencyKey, &sb.Fingerprint, &sb.CreatedAt); err != nil {
		return sb, err
	}
	sb.CreatedAt = sb.CreatedAt.UTC()
	rows, _ := tx.Query(ctx, sqlSeriesDoses, sb.ID)
	var err error
	sb.Appointments, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(row) })
	return sb, err
}

// sqlAccountSeriesBookings pages the ids of an account's series bookings
// and its people's, each person's probed apart as an account's
// appointments are (listAccount).
const sqlAccountSeriesBookings = `SELECT b.id
	FROM (SELECT $1::bigint AS id UNION ALL SELECT id FROM patients WHERE manager_id = $1) p,
	LATERAL (SELECT id FROM series_bookings b WHERE b.patient_id = p.id OFFSET 0) b
	WHERE $2::bigint = 0 OR b.id < $2 ORDER BY b.id DESC LIMIT NULLIF($3, 0)`

// ListAccountSeriesBookings lists the series bookings of an account and
// its people, newest first, each with its doses, in one transaction so
// that a page reads its doses as they were with its ids.
func (s *Store) ListAccountSeriesBookings(ctx context.Context, account int64, p booking.Page) ([]booking.SeriesBooking, error) {
	out := []booking.SeriesBooking{}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, sqlAccountSeriesBookings, account, p.After, p.Limit)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		for _, id := range ids {
			sb, err := seriesBookingIn(ctx, tx, id)
			if err != nil {
				return err
			}
			out = append(out, sb)
		}
		return nil
	})
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}
