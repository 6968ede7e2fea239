package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const (
	sqlDoseSeriesCols   = `id, name, windows, created_at`
	sqlInsertDoseSeries = `INSERT INTO dose_series (name, windows, created_at) VALUES ($1, $2, $3) RETURNING id`
	sqlListDoseSeries   = `SELECT ` + sqlDoseSeriesCols + ` FROM dose_series WHERE id > $1 ORDER BY id LIMIT $2`
	sqlSeriesReplay     = `SELECT id, series_id, patient_id, idempotency_key, fingerprint, created_at
		FROM series_bookings WHERE patient_id = $1 AND idempotency_key = $2`
	sqlSeriesDoses = `SELECT ` + apptColumns + ` FROM appointments a JOIN slots s ON s.id = a.slot_id
		JOIN series_doses d ON d.appointment_id = a.id WHERE d.booking_id = $1 ORDER BY d.dose_no`
	sqlDoseSeriesByID = `SELECT ` + sqlDoseSeriesCols + ` FROM dose_series WHERE id = $1`
	// sqlLockSeriesSlots locks a series' slots in id order, every series
	// alike, so that two never deadlock; it reads them too.
	sqlLockSeriesSlots = `SELECT ` + slotColumns + ` FROM slots WHERE id = ANY($1) ORDER BY id FOR UPDATE`
	// sqlLockSlotsInOrder locks a batch of series' slots, in id order.
	sqlLockSlotsInOrder = `SELECT id FROM slots WHERE id = ANY($1) ORDER BY id FOR UPDATE`
	sqlInsertSeries     = `INSERT INTO series_bookings (series_id, patient_id, idempotency_key, fingerprint, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`
	sqlInsertSeriesDose = `INSERT INTO series_doses (booking_id, dose_no, appointment_id) SELECT $1, n, id FROM unnest($2::bigint[]) WITH ORDINALITY AS d(id, n)`
	// sqlLockDoseSlots locks, in id order, the slots of the series an
	// appointment is a dose of (none for another appointment).
	sqlLockDoseSlots = `SELECT id FROM slots WHERE id IN (SELECT a.slot_id FROM series_doses d JOIN appointments a ON a.id = d.appointment_id
		WHERE d.booking_id = (SELECT booking_id FROM series_doses WHERE appointment_id = $1)) ORDER BY id FOR UPDATE`
	sqlLaterDoses = `SELECT ` + apptColumns + `, d.dose_no FROM appointments a JOIN slots s ON s.id = a.slot_id
		JOIN series_doses d ON d.appointment_id = a.id
		WHERE d.booking_id = (SELECT booking_id FROM series_doses WHERE appointment_id = $1)`
)

// PostgreSQL's JSON array length is jsonb_array_length (SQLite: json_array_length).
var sqlBrokenSeries = booking.BrokenSeriesSQL("jsonb_array_length(s.windows) + 1", "$1")

// CreateDoseSeries adds a dose series; audited.
func (s *Store) CreateDoseSeries(ctx context.Context, ds booking.DoseSeries, now time.Time) (booking.DoseSeries, error) {
	ds.CreatedAt = now.UTC().Truncate(time.Microsecond)
	w, err := json.Marshal(ds.Windows)
	if err != nil {
		return booking.DoseSeries{}, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, sqlInsertDoseSeries, ds.Name, w, ds.CreatedAt).Scan(&ds.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditDoseSeries(ctx, now, ds))
	})
	if err != nil {
		return booking.DoseSeries{}, translate(err, "")
	}
	return ds, nil
}

// ListDoseSeries lists the series by id, one page at a time.
func (s *Store) ListDoseSeries(ctx context.Context, p booking.Page) ([]booking.DoseSeries, error) {
	rows, _ := s.pool.Query(ctx, sqlListDoseSeries, p.After, p.Limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.DoseSeries, error) { return scanDoseSeries(r) })
	if err != nil {
		return nil, translate(err, "")
	}
	if out == nil {
		out = []booking.DoseSeries{}
	}
	return out, nil
}

func scanDoseSeries(r pgx.Row) (booking.DoseSeries, error) {
	var ds booking.DoseSeries
	var w []byte
	if err := r.Scan(&ds.ID, &ds.Name, &w, &ds.CreatedAt); err != nil {
		return ds, err
	}
	ds.CreatedAt = ds.CreatedAt.UTC()
	return ds, json.Unmarshal(w, &ds.Windows)
}

// errSeriesRefused rolls a series back after a dose was refused; the
// answer is kept aside.
var errSeriesRefused = errors.New("postgres: series refused")

// BookSeries books every dose of r in one transaction: the slots locked
// in id order, booking.DecideSeries, each dose decided by decideInTx in
// slot id order, then the series' rows; a refused dose rolls everything
// back. A deadlock (with a transaction that locks slots otherwise) is
// tried again.
func (s *Store) BookSeries(ctx context.Context, r booking.SeriesRequest, now time.Time) (booking.SeriesResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	return s.seriesTx(ctx, func(tx pgx.Tx) (booking.SeriesResult, error, error) { return s.bookSeriesIn(ctx, tx, r, now) },
		"series_bookings_patient_key_key")
}

// BookSeriesBatch decides rs in one transaction: every slot of every
// series locked first, in booking.SeriesLockOrder, then each series
// decided as BookSeries decides it, in rs's order, under a savepoint of
// its own (a nested pgx transaction) that a refusal rolls back to. A
// series a constraint stopped (its key committed meanwhile, say) is rolled
// back to its savepoint and decided alone after the commit, as
// BookSeries's retry would; a deadlock retries the whole batch.
func (s *Store) BookSeriesBatch(ctx context.Context, rs []booking.SeriesRequest, now time.Time) ([]booking.SeriesAnswer, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out []booking.SeriesAnswer
	var alone []int
	var err error
	for range 3 {
		out, alone = make([]booking.SeriesAnswer, len(rs)), nil
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, sqlLockSlotsInOrder, booking.SeriesLockOrder(rs)); err != nil {
				return err
			}
			for k, r := range rs {
				sp, err := tx.Begin(ctx)
				if err != nil {
					return err
				}
				res, refusal, err := s.bookSeriesIn(ctx, sp, r, now)
				switch {
				case err != nil && constraintOf(err) != "":
					alone = append(alone, k)
					rollback(ctx, sp)
					continue
				case err != nil:
					return err
				case refusal != nil:
					out[k].Err = refusal
					rollback(ctx, sp)
					continue
				}
				if err := sp.Commit(ctx); err != nil {
					return err
				}
				out[k].Result = res
			}
			return nil
		})
		if err == nil || !retryAlone(err) || constraintOf(err) != "" {
			break
		}
	}
	if err != nil {
		return nil, translate(err, "")
	}
	for _, k := range alone {
		out[k].Result, out[k].Err = s.BookSeries(ctx, rs[k], now)
	}
	return out, nil
}

// seriesTx runs one series write (in, answering its result, the refusal of
// a dose refused, and an error) in a transaction, rolled back on a
// refusal. A deadlock (with a transaction that locks slots otherwise) is
// tried again, and so is the same key committed meanwhile (a dose's
// ConPatientKey, or keyConstraint): then answered as its retry.
func (s *Store) seriesTx(ctx context.Context, in func(pgx.Tx) (booking.SeriesResult, error, error), keyConstraint string) (booking.SeriesResult, error) {
	var err error
	for range 3 {
		var res booking.SeriesResult
		var refusal error
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			var err error
			res, refusal, err = in(tx)
			if err == nil && refusal != nil {
				return errSeriesRefused
			}
			return err
		})
		switch c := constraintOf(err); {
		case refusal != nil:
			return booking.SeriesResult{}, refusal
		case err == nil:
			return res, nil
		case c == booking.ConPatientKey || keyConstraint != "" && c == keyConstraint:
			continue
		case c == "" && retryAlone(err):
			continue
		default:
			return booking.SeriesResult{}, translate(err, "")
		}
	}
	return booking.SeriesResult{}, translate(err, "")
}

// bookSeriesIn decides and writes r inside tx; refusal is the answer of a
// series refused, after which tx must be rolled back.
func (s *Store) bookSeriesIn(ctx context.Context, tx pgx.Tx, r booking.SeriesRequest, now time.Time) (res booking.SeriesResult, refusal, err error) {
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
	for k, q := range plan.Requests {
		out, err := s.decideInTx(ctx, tx, q.SlotID, []booking.BookRequest{q}, now)
		if err != nil {
			if e := booking.ConstraintError(constraintOf(err), q.SlotID); e != nil && constraintOf(err) != booking.ConPatientKey {
				return res, e, nil
			}
			return res, nil, err
		}
		if results[k] = out[0]; out[0].Err != nil {
			break
		}
	}
	sb, ferr := plan.Finish(r, results)
	if ferr != nil {
		return res, ferr, nil
	}
	sb.CreatedAt = now
	if err := tx.QueryRow(ctx, sqlInsertSeries, sb.SeriesID, sb.PatientID, sb.IdempotencyKey, sb.Fingerprint, now).Scan(&sb.ID); err != nil {
		return res, nil, err
	}
	ids := make([]int64, len(sb.Appointments))
	for k, a := range sb.Appointments {
		ids[k] = a.ID
	}
	if _, err := tx.Exec(ctx, sqlInsertSeriesDose, sb.ID, ids); err != nil {
		return res, nil, err
	}
	return booking.SeriesResult{Booking: sb}, nil, nil
}

// readSeries reads what DecideSeries needs, locking the request's slots
// first (in id order) so that the replay read after them sees what a
// racing request with the same key committed.
func readSeries(ctx context.Context, tx pgx.Tx, r booking.SeriesRequest) (booking.SeriesReads, error) {
	rd := booking.SeriesReads{Slots: map[int64]booking.Slot{}}
	rows, _ := tx.Query(ctx, sqlLockSeriesSlots, r.SlotIDs)
	slots, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.Slot, error) { return scanSlot(row) })
	if err != nil {
		return rd, err
	}
	for _, sl := range slots {
		rd.Slots[sl.ID] = sl
	}
	var sb booking.SeriesBooking
	switch err := tx.QueryRow(ctx, sqlSeriesReplay, r.PatientID, r.IdempotencyKey).Scan(&sb.ID, &sb.SeriesID, &sb.PatientID,
		&sb.IdempotencyKey, &sb.Fingerprint, &sb.CreatedAt); {
	case err == nil:
		sb.CreatedAt = sb.CreatedAt.UTC()
		rows, _ := tx.Query(ctx, sqlSeriesDoses, sb.ID)
		if sb.Appointments, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(row) }); err != nil {
			return rd, err
		}
		rd.Replay = &sb
		return rd, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return rd, err
	}
	switch ds, err := scanDoseSeries(tx.QueryRow(ctx, sqlDoseSeriesByID, r.SeriesID)); {
	case err == nil:
		rd.Series = &ds
	case !errors.Is(err, pgx.ErrNoRows):
		return rd, err
	}
	return rd, nil
}

// lockSeriesSlots locks the slots of the series appointment id is a dose
// of, in id order, and reports whether it is one.
func lockSeriesSlots(ctx context.Context, tx pgx.Tx, id int64) (dose bool, err error) {
	rows, _ := tx.Query(ctx, sqlLockDoseSlots, id)
	for rows.Next() {
		dose = true
	}
	return dose, rows.Err()
}

// cancelLaterDoses cancels, inside tx, the later doses of the series
// whose appointment id was just cancelled (booking.LaterDoses).
func (s *Store) cancelLaterDoses(ctx context.Context, tx pgx.Tx, id int64, now time.Time) error {
	byDose := map[int]booking.Appointment{}
	n := 0
	rows, _ := tx.Query(ctx, sqlLaterDoses, id)
	var dose int32
	for rows.Next() {
		a, err := scanAppointment(rows, &dose)
		if err != nil {
			rows.Close()
			return err
		}
		if a.ID == id {
			n = int(dose)
		}
		byDose[int(dose)] = a
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, a := range booking.LaterDoses(n, byDose) {
		if _, err := s.cancelIn(ctx, tx, a.ID, 0, 0, now, booking.CancelRefundReason(0)); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("postgres: cancel dose %d of the series: %w", a.ID, err)
		}
	}
	return nil
}
