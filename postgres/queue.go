package postgres

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// The doctors' queues (booking/queue.go): queue_days is the row every
// change locks, queue_steps an appointment's step once called.

// queueCols are a queue entry's columns (scanQueueEntry's order) over
// slots s, appointments a and the left-joined queue_steps q.
const queueCols = `a.id, a.patient_id, a.status, a.queue_no, a.start_at, s.end_at, s.capacity, a.updated_at,
	coalesce(q.step, 'WAITING'), coalesce(q.call_seq, 0), coalesce(q.calls, 0), coalesce(q.skip_seq, 0),
	q.called_at, q.started_at`

// sqlQueueEntries reads doctor $1's ARRIVED appointments of slots starting
// in [$2, $3), and the steps of day $4 whose appointments left ARRIVED and
// are not closed yet.
const sqlQueueEntries = `SELECT ` + queueCols + `
	FROM slots s JOIN appointments a ON a.slot_id = s.id LEFT JOIN queue_steps q ON q.appointment_id = a.id
	WHERE s.resource_id = $1 AND s.start_at >= $2 AND s.start_at < $3 AND a.status = $5
	UNION ALL
	SELECT ` + queueCols + `
	FROM queue_steps q JOIN appointments a ON a.id = q.appointment_id JOIN slots s ON s.id = a.slot_id
	WHERE q.doctor_id = $1 AND q.day = $4 AND q.step <> 'DONE' AND a.status <> $5`

func scanQueueEntry(r pgx.Row) (booking.QueueEntry, error) {
	var e booking.QueueEntry
	var status string
	var end time.Time
	var capacity int
	err := r.Scan(&e.AppointmentID, &e.PatientID, &status, &e.QueueNumber, &e.StartAt, &end, &capacity, &e.ArrivedAt,
		&e.Step, &e.CallSeq, &e.Calls, &e.SkipSeq, &e.CalledAt, &e.StartedAt)
	e.Status, e.SlotMinutes = booking.Status(status), booking.SlotShare(e.StartAt, end, capacity)
	e.StartAt, e.ArrivedAt = e.StartAt.UTC(), e.ArrivedAt.UTC()
	return e, err
}

// queueDate is a queue day as PostgreSQL's date.
func queueDate(day string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return time.Time{}, booking.Errorf(booking.CodeInvalidRequest, "a queue day is a date (YYYY-MM-DD)")
	}
	return d, nil
}

// queueReader is what reads a day: the pool, or a transaction.
type queueReader interface {
	QueryRow(context.Context, string, ...any) pgx.Row
	Query(context.Context, string, ...any) (pgx.Rows, error)
}

// readQueueDay reads r's day with its call count calls.
func readQueueDay(ctx context.Context, q queueReader, r booking.QueueRange, calls int) (booking.QueueDay, error) {
	day, err := queueDate(r.Day)
	if err != nil {
		return booking.QueueDay{}, err
	}
	d := booking.QueueDay{DoctorID: r.DoctorID, Day: r.Day, Calls: calls}
	rows, err := q.Query(ctx, sqlQueueEntries, r.DoctorID, r.From, r.To, day, string(booking.StatusArrived))
	if err != nil {
		return d, err
	}
	d.Entries, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.QueueEntry, error) { return scanQueueEntry(row) })
	return d, err
}

// lockQueueDay locks r's queue_days row (made if missing) and reads the
// day: the day's changes happen one at a time.
func lockQueueDay(ctx context.Context, tx pgx.Tx, r booking.QueueRange) (booking.QueueDay, error) {
	day, err := queueDate(r.Day)
	if err != nil {
		return booking.QueueDay{}, err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO queue_days (doctor_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING`, r.DoctorID, day); err != nil {
		return booking.QueueDay{}, err
	}
	var calls int
	if err := tx.QueryRow(ctx, `SELECT calls FROM queue_days WHERE doctor_id = $1 AND day = $2 FOR UPDATE`, r.DoctorID, day).Scan(&calls); err != nil {
		return booking.QueueDay{}, err
	}
	return readQueueDay(ctx, tx, r, calls)
}

// QueueDay reads the doctor's day (booking.QueueStore).
func (s *Store) QueueDay(ctx context.Context, r booking.QueueRange) (booking.QueueDay, error) {
	day, err := queueDate(r.Day)
	if err != nil {
		return booking.QueueDay{}, err
	}
	var calls int
	err = s.pool.QueryRow(ctx, `SELECT calls FROM queue_days WHERE doctor_id = $1 AND day = $2`, r.DoctorID, day).Scan(&calls)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return booking.QueueDay{}, translate(err, "")
	}
	d, err := readQueueDay(ctx, s.pool, r, calls)
	if err != nil {
		return d, translate(err, "")
	}
	rows, err := s.pool.Query(ctx, sqlQueueDone, r.DoctorID, day, booking.MaxPaceSamples)
	if err == nil {
		var us []int64
		us, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		for _, u := range us {
			d.Done = append(d.Done, time.Duration(u)*time.Microsecond)
		}
	}
	return d, translate(err, "")
}

// sqlQueueDone reads the lengths (start, or call when never started, to
// completion) of doctor $1's latest $3 completed consultations of day $2,
// newest first, in microseconds. A COMPLETED appointment's updated_at is its completion:
// the status is final.
const sqlQueueDone = `SELECT (extract(epoch FROM a.updated_at - coalesce(q.started_at, q.called_at)) * 1000000)::bigint
	FROM queue_steps q JOIN appointments a ON a.id = q.appointment_id
	WHERE q.doctor_id = $1 AND q.day = $2 AND a.status = ` + booking.StatusCompletedSQL + `
	ORDER BY a.updated_at DESC LIMIT $3`

// CallNext calls the doctor's next patient (booking.QueueStore), decided
// by booking.DecideCall with the day locked.
func (s *Store) CallNext(ctx context.Context, r booking.QueueRange, now time.Time) (c booking.QueueCall, d booking.QueueDay, err error) {
	now = micro(now)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var k, ahead int
		if err := tx.QueryRow(ctx, `SELECT queue_skip_calls, queue_notify_ahead FROM clinic_policy WHERE id = 1`).Scan(&k, &ahead); err != nil {
			return err
		}
		before, err := lockQueueDay(ctx, tx, r)
		if err != nil {
			return err
		}
		if c, err = booking.DecideCall(before, k, now); err != nil {
			return err
		}
		day, _ := queueDate(r.Day)
		for _, id := range c.Finished {
			if _, err := tx.Exec(ctx, `UPDATE queue_steps SET step = 'DONE' WHERE appointment_id = $1`, id); err != nil {
				return err
			}
		}
		var audit []booking.AuditEntry
		if p := c.Passed; p != nil {
			if _, err := tx.Exec(ctx, `UPDATE queue_steps SET step = $2, skip_seq = $3 WHERE appointment_id = $1`,
				p.AppointmentID, p.Step, p.SkipSeq); err != nil {
				return err
			}
			audit = append(audit, booking.AuditQueue(ctx, now, booking.QueueChange{Action: booking.AuditQueueSkip, Before: before.Entry(p.AppointmentID), After: *p}))
		}
		n := c.Next
		if _, err := tx.Exec(ctx, `INSERT INTO queue_steps (appointment_id, doctor_id, day, step, call_seq, calls, skip_seq, called_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (appointment_id) DO UPDATE SET step = excluded.step, call_seq = excluded.call_seq,
				calls = excluded.calls, called_at = excluded.called_at`,
			n.AppointmentID, r.DoctorID, day, n.Step, n.CallSeq, n.Calls, n.SkipSeq, *n.CalledAt); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE queue_days SET calls = $3 WHERE doctor_id = $1 AND day = $2`, r.DoctorID, day, c.Seq); err != nil {
			return err
		}
		audit = append(audit, booking.AuditQueue(ctx, now, booking.QueueChange{Action: booking.AuditQueueCall, Before: before.Entry(n.AppointmentID), After: n}))
		d = before.After(c)
		if err := s.noticeAhead(ctx, tx, d, k, ahead, now); err != nil {
			return err
		}
		return writeAudit(ctx, tx, audit...)
	})
	if err != nil {
		return booking.QueueCall{}, booking.QueueDay{}, translate(err, "")
	}
	return c, d, nil
}

// noticeAhead sends the message of the patient the call leaves ahead
// people ahead (booking.QueueAheadNotice), unless their appointment had
// it: queue_notices keeps one row per appointment told.
func (s *Store) noticeAhead(ctx context.Context, tx pgx.Tx, d booking.QueueDay, k, ahead int, now time.Time) error {
	id, ok := booking.QueueAheadNotice(d, k, ahead)
	if !ok {
		return nil
	}
	tag, err := tx.Exec(ctx, `INSERT INTO queue_notices (appointment_id, ahead, sent_at) VALUES ($1, $2, $3)
		ON CONFLICT (appointment_id) DO NOTHING`, id, ahead, now)
	if err != nil || tag.RowsAffected() == 0 {
		return err
	}
	return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyQueueAhead, AppointmentID: id, Ref: strconv.Itoa(ahead)}})
}

// StepQueue recalls, skips or starts the current call (booking.QueueStore),
// decided by booking.DecideQueueStep with the appointment's day locked.
func (s *Store) StepQueue(ctx context.Context, st booking.QueueStep, now time.Time) (e booking.QueueEntry, err error) {
	now = micro(now)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var doctor int64
		var tz string
		var start time.Time
		if err := tx.QueryRow(ctx, `SELECT s.resource_id, r.timezone, a.start_at
			FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN resources r ON r.id = s.resource_id
			WHERE a.id = $1`, st.AppointmentID).Scan(&doctor, &tz, &start); err != nil {
			return err
		}
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return err
		}
		d := booking.QueueDay{DoctorID: doctor, Day: booking.QueueDayOf(start, loc)}
		day, _ := queueDate(d.Day)
		err = tx.QueryRow(ctx, `SELECT calls FROM queue_days WHERE doctor_id = $1 AND day = $2 FOR UPDATE`, doctor, day).Scan(&d.Calls)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		before, err := scanQueueEntry(tx.QueryRow(ctx, `SELECT `+queueCols+`
			FROM appointments a JOIN slots s ON s.id = a.slot_id LEFT JOIN queue_steps q ON q.appointment_id = a.id
			WHERE a.id = $1`, st.AppointmentID))
		if err != nil {
			return err
		}
		if e, err = booking.DecideQueueStep(d, before, st, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE queue_steps SET step = $2, calls = $3, skip_seq = $4, called_at = $5, started_at = $6
			WHERE appointment_id = $1`, e.AppointmentID, e.Step, e.Calls, e.SkipSeq, *e.CalledAt, e.StartedAt); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditQueue(ctx, now, booking.QueueChange{Action: st.AuditAction(), Before: before, After: e}))
	})
	if err != nil {
		return booking.QueueEntry{}, translate(err, "appointment")
	}
	return e, nil
}
