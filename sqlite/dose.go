package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// BookNextDose books the next dose of a series booking in one write
// transaction (which serializes it with every other booking and cancel):
// booking.DecideNextDose, the dose decided by decideInTx, then its link;
// a refused dose rolls everything back.
func (s *Store) BookNextDose(ctx context.Context, r booking.NextDoseRequest, now time.Time) (booking.SeriesResult, error) {
	now = micro(now)
	var res booking.SeriesResult
	var refusal error
	s.stmts.prepare(ctx, s.writer)
	err := s.write(ctx, func(tx *sql.Tx) error {
		rd, err := readNextDose(ctx, tx, r)
		if err != nil {
			return err
		}
		plan := booking.DecideNextDose(r, rd)
		switch {
		case plan.Err != nil:
			refusal = plan.Err
			return nil
		case plan.Replay:
			sb, err := seriesBooking(ctx, tx, r.BookingID)
			res = booking.SeriesResult{Booking: sb, Replayed: true}
			return err
		}
		out, ns, err := s.decideInTx(ctx, tx, r.SlotID, []booking.BookRequest{plan.Request}, now, nil)
		if err != nil {
			if v, ok := asViolation(err).(*violation); ok {
				refusal = bookingErr(v.name, r.SlotID, v.err)
				return errSeriesRefused
			}
			return err
		}
		if out[0].Err != nil || out[0].Replayed {
			// A replay here was made outside this booking: the replay read
			// above found none of its own.
			if refusal = out[0].Err; refusal == nil {
				refusal = booking.KeyReused(r.SlotID)
			}
			return errSeriesRefused
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO series_doses (booking_id, dose_no, appointment_id) VALUES (?, ?, ?)`,
			r.BookingID, plan.Dose, out[0].Appointment.ID); err != nil {
			return err
		}
		sb, err := seriesBooking(ctx, tx, r.BookingID)
		if err != nil {
			return err
		}
		res = booking.SeriesResult{Booking: sb}
		return s.notify(ctx, tx, ns)
	})
	switch {
	case refusal != nil:
		return booking.SeriesResult{}, refusal
	case err != nil:
		return booking.SeriesResult{}, mapErr(err, "")
	}
	return res, nil
}

// readNextDose reads what DecideNextDose needs inside tx: the key's
// appointment, the booking with its doses and series, and the slot.
func readNextDose(ctx context.Context, tx *sql.Tx, r booking.NextDoseRequest) (booking.NextDoseReads, error) {
	var rd booking.NextDoseReads
	switch a, err := scanAppt(tx.QueryRowContext(ctx, `SELECT `+apptCols+apptFrom+`WHERE a.patient_id = ? AND a.idempotency_key = ?`,
		r.PatientID, r.IdempotencyKey)); {
	case err == nil:
		rd.Replay = &a
		return rd, nil
	case !errors.Is(err, sql.ErrNoRows):
		return rd, err
	}
	switch sb, err := seriesBooking(ctx, tx, r.BookingID); {
	case errors.Is(err, sql.ErrNoRows):
		return rd, nil
	case err != nil:
		return rd, err
	default:
		rd.Booking = &sb
	}
	switch ds, err := scanDoseSeries(tx.QueryRowContext(ctx, `SELECT id, name, windows, created_at FROM dose_series WHERE id = ?`,
		rd.Booking.SeriesID)); {
	case err == nil:
		rd.Series = &ds
	case !errors.Is(err, sql.ErrNoRows):
		return rd, err
	}
	switch sl, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, r.SlotID)); {
	case err == nil:
		rd.Slot = &sl
	case !errors.Is(err, sql.ErrNoRows):
		return rd, err
	}
	return rd, nil
}

// ListAccountSeriesBookings lists the series bookings of an account and
// its people, newest first, each with its doses.
func (s *Store) ListAccountSeriesBookings(ctx context.Context, account int64, p booking.Page) ([]booking.SeriesBooking, error) {
	var ids []int64
	err := eachRow(ctx, s.reader, `SELECT id FROM series_bookings
		WHERE patient_id IN (SELECT id FROM patients WHERE id = ?1 OR manager_id = ?1) AND (?2 = 0 OR id < ?2)
		ORDER BY id DESC LIMIT ?3`, []any{account, p.After, rowLimit(p)}, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	out := make([]booking.SeriesBooking, 0, len(ids))
	for _, id := range ids {
		sb, err := seriesBooking(ctx, s.reader, id)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, sb)
	}
	return out, nil
}
