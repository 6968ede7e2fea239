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

// CreateDoseSeries adds a dose series; audited.
func (s *Store) CreateDoseSeries(ctx context.Context, ds booking.DoseSeries, now time.Time) (booking.DoseSeries, error) {
	ds.CreatedAt = micro(now)
	w, err := json.Marshal(ds.Windows)
	if err != nil {
		return booking.DoseSeries{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO dose_series (name, windows, created_at) VALUES (?, ?, ?) RETURNING id`,
			ds.Name, string(w), ts(ds.CreatedAt)).Scan(&ds.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditDoseSeries(ctx, now, ds))
	})
	if err != nil {
		return booking.DoseSeries{}, mapErr(err, "")
	}
	return ds, nil
}

// ListDoseSeries lists the series by id, one page at a time.
func (s *Store) ListDoseSeries(ctx context.Context, p booking.Page) ([]booking.DoseSeries, error) {
	out := []booking.DoseSeries{}
	err := eachRow(ctx, s.reader, `SELECT id, name, windows, created_at FROM dose_series WHERE id > ? ORDER BY id LIMIT ?`,
		[]any{p.After, p.Limit}, func(rows *sql.Rows) error {
			ds, err := scanDoseSeries(rows)
			out = append(out, ds)
			return err
		})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

func scanDoseSeries(sc interface{ Scan(...any) error }) (booking.DoseSeries, error) {
	var ds booking.DoseSeries
	var w string
	var created int64
	if err := sc.Scan(&ds.ID, &ds.Name, &w, &created); err != nil {
		return ds, err
	}
	ds.CreatedAt = fromTS(created)
	return ds, json.Unmarshal([]byte(w), &ds.Windows)
}

// errSeriesRefused rolls a series back after a dose was refused; the
// answer is kept aside.
var errSeriesRefused = errors.New("sqlite: series refused")

// BookSeries books every dose of r in one write transaction (which
// serializes it with every other booking): booking.DecideSeries, then each
// dose decided by decideInTx in slot id order, then the series' rows; a
// refused dose rolls everything back.
func (s *Store) BookSeries(ctx context.Context, r booking.SeriesRequest, now time.Time) (booking.SeriesResult, error) {
	now = micro(now)
	var res booking.SeriesResult
	var refusal error
	s.stmts.prepare(ctx, s.writer)
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if res, refusal, err = s.bookSeriesIn(ctx, tx, r, now); err == nil && refusal != nil {
			return errSeriesRefused
		}
		return err
	})
	switch {
	case refusal != nil:
		return booking.SeriesResult{}, refusal
	case err != nil:
		return booking.SeriesResult{}, mapErr(err, "")
	}
	return res, nil
}

// BookSeriesBatch decides rs in one write transaction: the write lock
// serializes it whole, so SQLite needs no lock order; each series is
// decided as BookSeries decides it, under a savepoint that a refusal rolls
// back to (SQLite undoes only the statement a constraint refused).
func (s *Store) BookSeriesBatch(ctx context.Context, rs []booking.SeriesRequest, now time.Time) ([]booking.SeriesAnswer, error) {
	now = micro(now)
	var out []booking.SeriesAnswer
	s.stmts.prepare(ctx, s.writer)
	err := s.write(ctx, func(tx *sql.Tx) error {
		out = make([]booking.SeriesAnswer, len(rs))
		for k, r := range rs {
			if _, err := tx.ExecContext(ctx, `SAVEPOINT series_batch`); err != nil {
				return err
			}
			res, refusal, err := s.bookSeriesIn(ctx, tx, r, now)
			if err != nil {
				return err
			}
			if refusal != nil {
				out[k].Err = refusal
				if _, err := tx.ExecContext(ctx, `ROLLBACK TO series_batch`); err != nil {
					return err
				}
			} else {
				out[k].Result = res
			}
			if _, err := tx.ExecContext(ctx, `RELEASE series_batch`); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

// bookSeriesIn decides and writes r inside tx; refusal is the answer of a
// series refused, after which what it wrote must be rolled back (the
// transaction, or its savepoint).
func (s *Store) bookSeriesIn(ctx context.Context, tx *sql.Tx, r booking.SeriesRequest, now time.Time) (res booking.SeriesResult, refusal, err error) {
	rd, err := readSeries(ctx, tx, r)
	if err != nil {
		return res, nil, err
	}
	plan := booking.DecideSeries(r, rd)
	switch {
	case plan.Replay != nil:
		return *plan.Replay, nil, nil
	case plan.Err != nil:
		return res, plan.Err, nil
	}
	results := make([]booking.BookResult, len(plan.Requests))
	var ns []booking.Notification
	for k, q := range plan.Requests {
		out, n, err := s.decideInTx(ctx, tx, q.SlotID, []booking.BookRequest{q}, now, nil)
		if err != nil {
			if v, ok := asViolation(err).(*violation); ok {
				results[k] = booking.BookResult{Err: bookingErr(v.name, q.SlotID, v.err)}
				break
			}
			return res, nil, err
		}
		results[k], ns = out[0], append(ns, n...)
		if out[0].Err != nil {
			break
		}
	}
	sb, ferr := plan.Finish(r, results)
	if ferr != nil {
		return res, ferr, nil
	}
	if err := insertSeries(ctx, tx, &sb, now); err != nil {
		return res, nil, err
	}
	return booking.SeriesResult{Booking: sb}, nil, s.notify(ctx, tx, ns)
}

// readSeries reads what DecideSeries needs inside tx: the replay, the
// series and the slots.
func readSeries(ctx context.Context, tx *sql.Tx, r booking.SeriesRequest) (booking.SeriesReads, error) {
	var rd booking.SeriesReads
	var id int64
	switch err := tx.QueryRowContext(ctx, `SELECT id FROM series_bookings WHERE patient_id = ? AND idempotency_key = ?`,
		r.PatientID, r.IdempotencyKey).Scan(&id); {
	case err == nil:
		sb, err := seriesBooking(ctx, tx, id)
		if err != nil {
			return rd, err
		}
		rd.Replay = &sb
		return rd, nil
	case !errors.Is(err, sql.ErrNoRows):
		return rd, err
	}
	switch ds, err := scanDoseSeries(tx.QueryRowContext(ctx, `SELECT id, name, windows, created_at FROM dose_series WHERE id = ?`, r.SeriesID)); {
	case err == nil:
		rd.Series = &ds
	case !errors.Is(err, sql.ErrNoRows):
		return rd, err
	}
	ids, _ := json.Marshal(r.SlotIDs)
	rd.Slots = map[int64]booking.Slot{}
	err := eachRow(ctx, tx, `SELECT `+slotCols+` FROM slots WHERE id IN (SELECT value FROM json_each(?))`, []any{string(ids)},
		func(rows *sql.Rows) error {
			sl, err := scanSlot(rows)
			rd.Slots[sl.ID] = sl
			return err
		})
	return rd, err
}

// seriesBooking reads booking id with its appointments in dose order.
func seriesBooking(ctx context.Context, q querier, id int64) (booking.SeriesBooking, error) {
	var sb booking.SeriesBooking
	var created int64
	if err := q.QueryRowContext(ctx, `SELECT id, series_id, patient_id, idempotency_key, fingerprint, created_at
		FROM series_bookings WHERE id = ?`, id).Scan(&sb.ID, &sb.SeriesID, &sb.PatientID, &sb.IdempotencyKey, &sb.Fingerprint, &created); err != nil {
		return sb, err
	}
	sb.CreatedAt = fromTS(created)
	err := eachRow(ctx, q, `SELECT `+apptCols+apptFrom+`JOIN series_doses d ON d.appointment_id = a.id
		WHERE d.booking_id = ? ORDER BY d.dose_no`, []any{id}, func(rows *sql.Rows) error {
		a, err := scanAppt(rows)
		sb.Appointments = append(sb.Appointments, a)
		return err
	})
	return sb, err
}

// insertSeries writes the booking's row and its doses' links.
func insertSeries(ctx context.Context, tx *sql.Tx, sb *booking.SeriesBooking, now time.Time) error {
	sb.CreatedAt = now
	if err := tx.QueryRowContext(ctx, `INSERT INTO series_bookings (series_id, patient_id, idempotency_key, fingerprint, created_at)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, sb.SeriesID, sb.PatientID, sb.IdempotencyKey, sb.Fingerprint, ts(now)).Scan(&sb.ID); err != nil {
		return err
	}
	for k, a := range sb.Appointments {
		if _, err := tx.ExecContext(ctx, `INSERT INTO series_doses (booking_id, dose_no, appointment_id) VALUES (?, ?, ?)`,
			sb.ID, k+1, a.ID); err != nil {
			return err
		}
	}
	return nil
}

// laterDosesSQL reads the doses of the series appointment ?1 belongs to,
// with their dose numbers and ?1's own.
const laterDosesSQL = `SELECT d.dose_no, ` + apptCols + apptFrom + `JOIN series_doses d ON d.appointment_id = a.id
	WHERE d.booking_id = (SELECT booking_id FROM series_doses WHERE appointment_id = ?1)`

// cancelLaterDoses cancels, inside tx, the later doses of the series
// whose appointment id was just cancelled (booking.LaterDoses); an
// appointment of no series has none.
func (s *Store) cancelLaterDoses(ctx context.Context, tx *sql.Tx, id int64, now time.Time) error {
	byDose := map[int]booking.Appointment{}
	n := 0
	if err := eachRow(ctx, tx, laterDosesSQL, []any{id}, func(rows *sql.Rows) error {
		var dose int
		a, err := scanAppt(prefixScanner{rows, []any{&dose}})
		if a.ID == id {
			n = dose
		}
		byDose[dose] = a
		return err
	}); err != nil {
		return err
	}
	for _, a := range booking.LaterDoses(n, byDose) {
		if _, err := s.cancelIn(ctx, tx, a.ID, 0, 0, now, booking.CancelRefundReason(0)); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("sqlite: cancel dose %d of the series: %w", a.ID, err)
		}
	}
	return nil
}

// prefixScanner scans the columns before an appointment's into first.
type prefixScanner struct {
	sc    interface{ Scan(...any) error }
	first []any
}

func (p prefixScanner) Scan(dest ...any) error { return p.sc.Scan(append(p.first, dest...)...) }
