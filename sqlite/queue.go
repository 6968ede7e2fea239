package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// The doctors' queues (booking/queue.go), mirroring postgres/queue.go.
// SQLite serializes writers, so the write transaction is the lock of the
// doctor's day.

const queueCols = `a.id, a.patient_id, a.status, a.queue_no, a.start_at, s.end_at, s.capacity, a.updated_at,
	coalesce(q.step, 'WAITING'), coalesce(q.call_seq, 0), coalesce(q.calls, 0), coalesce(q.skip_seq, 0),
	q.called_at, q.started_at`

// sqlQueueEntries: see postgres/queue.go.
const sqlQueueEntries = `SELECT ` + queueCols + `
	FROM slots s JOIN appointments a ON a.slot_id = s.id LEFT JOIN queue_steps q ON q.appointment_id = a.id
	WHERE s.resource_id = ?1 AND s.start_at >= ?2 AND s.start_at < ?3 AND a.status = ?5
	UNION ALL
	SELECT ` + queueCols + `
	FROM queue_steps q JOIN appointments a ON a.id = q.appointment_id JOIN slots s ON s.id = a.slot_id
	WHERE q.doctor_id = ?1 AND q.day = ?4 AND q.step <> 'DONE' AND a.status <> ?5`

func scanQueueEntry(r interface{ Scan(...any) error }) (booking.QueueEntry, error) {
	var e booking.QueueEntry
	var status string
	var start, end, arrived int64
	var called, started sql.NullInt64
	var capacity int
	err := r.Scan(&e.AppointmentID, &e.PatientID, &status, &e.QueueNumber, &start, &end, &capacity, &arrived,
		&e.Step, &e.CallSeq, &e.Calls, &e.SkipSeq, &called, &started)
	e.Status, e.StartAt, e.ArrivedAt = booking.Status(status), fromTS(start), fromTS(arrived)
	e.SlotMinutes = booking.SlotShare(e.StartAt, fromTS(end), capacity)
	e.CalledAt, e.StartedAt = optTS(called), optTS(started)
	return e, err
}

func optTS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromTS(v.Int64)
	return &t
}

// readQueueDay reads r's day with its call count calls.
func readQueueDay(ctx context.Context, q querier, r booking.QueueRange, calls int) (booking.QueueDay, error) {
	d := booking.QueueDay{DoctorID: r.DoctorID, Day: r.Day, Calls: calls}
	rows, err := q.QueryContext(ctx, sqlQueueEntries, r.DoctorID, ts(r.From), ts(r.To), r.Day, string(booking.StatusArrived))
	if err != nil {
		return d, err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanQueueEntry(rows)
		if err != nil {
			return d, err
		}
		d.Entries = append(d.Entries, e)
	}
	return d, rows.Err()
}

// queueCalls reads day's call count (0 before its first call).
func queueCalls(ctx context.Context, q querier, doctor int64, day string) (int, error) {
	var calls int
	err := q.QueryRowContext(ctx, `SELECT calls FROM queue_days WHERE doctor_id = ? AND day = ?`, doctor, day).Scan(&calls)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return calls, err
}

// QueueDay reads the doctor's day (booking.QueueStore).
func (s *Store) QueueDay(ctx context.Context, r booking.QueueRange) (booking.QueueDay, error) {
	calls, err := queueCalls(ctx, s.reader, r.DoctorID, r.Day)
	if err != nil {
		return booking.QueueDay{}, mapErr(err, "")
	}
	d, err := readQueueDay(ctx, s.reader, r, calls)
	if err != nil {
		return d, mapErr(err, "")
	}
	d.Done, err = readQueueDone(ctx, s.reader, r)
	return d, mapErr(err, "")
}

// sqlQueueDone: see postgres/queue.go. A COMPLETED appointment's
// updated_at is its completion: the status is final.
const sqlQueueDone = `SELECT a.updated_at - coalesce(q.started_at, q.called_at)
	FROM queue_steps q JOIN appointments a ON a.id = q.appointment_id
	WHERE q.doctor_id = ? AND q.day = ? AND a.status = ` + booking.StatusCompletedSQL + `
	ORDER BY a.updated_at DESC LIMIT ?`

// readQueueDone reads the lengths of r's latest completed consultations
// (booking.QueueDay.Done).
func readQueueDone(ctx context.Context, q querier, r booking.QueueRange) ([]time.Duration, error) {
	rows, err := q.QueryContext(ctx, sqlQueueDone, r.DoctorID, r.Day, booking.MaxPaceSamples)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Duration
	for rows.Next() {
		var us int64
		if err := rows.Scan(&us); err != nil {
			return nil, err
		}
		out = append(out, time.Duration(us)*time.Microsecond)
	}
	return out, rows.Err()
}

// CallNext calls the doctor's next patient (booking.QueueStore), decided
// by booking.DecideCall in one write transaction.
func (s *Store) CallNext(ctx context.Context, r booking.QueueRange, now time.Time) (c booking.QueueCall, d booking.QueueDay, err error) {
	now = micro(now)
	err = s.write(ctx, func(tx *sql.Tx) error {
		var k, ahead int
		if err := tx.QueryRowContext(ctx, `SELECT queue_skip_calls, queue_notify_ahead FROM clinic_policy WHERE id = 1`).Scan(&k, &ahead); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO queue_days (doctor_id, day) VALUES (?, ?)`, r.DoctorID, r.Day); err != nil {
			return err
		}
		calls, err := queueCalls(ctx, tx, r.DoctorID, r.Day)
		if err != nil {
			return err
		}
		before, err := readQueueDay(ctx, tx, r, calls)
		if err != nil {
			return err
		}
		if c, err = booking.DecideCall(before, k, now); err != nil {
			return err
		}
		for _, id := range c.Finished {
			if _, err := tx.ExecContext(ctx, `UPDATE queue_steps SET step = 'DONE' WHERE appointment_id = ?`, id); err != nil {
				return err
			}
		}
		var audit []booking.AuditEntry
		if p := c.Passed; p != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE queue_steps SET step = ?, skip_seq = ? WHERE appointment_id = ?`,
				p.Step, p.SkipSeq, p.AppointmentID); err != nil {
				return err
			}
			audit = append(audit, booking.AuditQueue(ctx, now, booking.QueueChange{Action: booking.AuditQueueSkip, Before: before.Entry(p.AppointmentID), After: *p}))
		}
		n := c.Next
		if _, err := tx.ExecContext(ctx, `INSERT INTO queue_steps (appointment_id, doctor_id, day, step, call_seq, calls, skip_seq, called_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (appointment_id) DO UPDATE SET step = excluded.step, call_seq = excluded.call_seq,
				calls = excluded.calls, called_at = excluded.called_at`,
			n.AppointmentID, r.DoctorID, r.Day, n.Step, n.CallSeq, n.Calls, n.SkipSeq, ts(*n.CalledAt)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE queue_days SET calls = ? WHERE doctor_id = ? AND day = ?`, c.Seq, r.DoctorID, r.Day); err != nil {
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
		return booking.QueueCall{}, booking.QueueDay{}, mapErr(err, "")
	}
	return c, d, nil
}

// noticeAhead sends the message of the patient the call leaves ahead
// people ahead (booking.QueueAheadNotice), unless their appointment had
// it: queue_notices keeps one row per appointment told.
func (s *Store) noticeAhead(ctx context.Context, tx *sql.Tx, d booking.QueueDay, k, ahead int, now time.Time) error {
	id, ok := booking.QueueAheadNotice(d, k, ahead)
	if !ok {
		return nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO queue_notices (appointment_id, ahead, sent_at) VALUES (?, ?, ?)
		ON CONFLICT (appointment_id) DO NOTHING`, id, ahead, ts(now))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyQueueAhead, AppointmentID: id, Ref: strconv.Itoa(ahead)}})
}

// StepQueue recalls, skips or starts the current call (booking.QueueStore),
// decided by booking.DecideQueueStep in one write transaction.
func (s *Store) StepQueue(ctx context.Context, st booking.QueueStep, now time.Time) (e booking.QueueEntry, err error) {
	now = micro(now)
	err = s.write(ctx, func(tx *sql.Tx) error {
		var doctor, start int64
		var tz string
		if err := tx.QueryRowContext(ctx, `SELECT s.resource_id, r.timezone, a.start_at
			FROM appointments a JOIN slots s ON s.id = a.slot_id JOIN resources r ON r.id = s.resource_id
			WHERE a.id = ?`, st.AppointmentID).Scan(&doctor, &tz, &start); err != nil {
			return err
		}
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return err
		}
		d := booking.QueueDay{DoctorID: doctor, Day: booking.QueueDayOf(fromTS(start), loc)}
		if d.Calls, err = queueCalls(ctx, tx, doctor, d.Day); err != nil {
			return err
		}
		before, err := scanQueueEntry(tx.QueryRowContext(ctx, `SELECT `+queueCols+`
			FROM appointments a JOIN slots s ON s.id = a.slot_id LEFT JOIN queue_steps q ON q.appointment_id = a.id
			WHERE a.id = ?`, st.AppointmentID))
		if err != nil {
			return err
		}
		if e, err = booking.DecideQueueStep(d, before, st, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE queue_steps SET step = ?, calls = ?, skip_seq = ?, called_at = ?, started_at = ?
			WHERE appointment_id = ?`, e.Step, e.Calls, e.SkipSeq, ts(*e.CalledAt), nullTS(e.StartedAt), e.AppointmentID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditQueue(ctx, now, booking.QueueChange{Action: st.AuditAction(), Before: before, After: e}))
	})
	if err != nil {
		return booking.QueueEntry{}, mapErr(err, "appointment")
	}
	return e, nil
}
