package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// SendReminders is one reminder scan in one transaction: the candidates
// (BOOKED, starting within the window), booking.DecideReminder for each,
// the offsets recorded in reminders (ON CONFLICT DO NOTHING: a concurrent
// scan that recorded one first wins, and only the inserting transaction
// enqueues its message).
func (s *Store) SendReminders(ctx context.Context, defaults []time.Duration, now time.Time, limit int) (booking.ReminderScan, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var scan booking.ReminderScan
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT DISTINCT reminders FROM schedules WHERE reminders IS NOT NULL`)
		own, err := collectStrings(rows, err)
		if err != nil {
			return err
		}
		window := booking.ReminderWindow(defaults, own)
		if window == 0 {
			return nil
		}
		rows, err = tx.Query(ctx, `SELECT a.id, a.start_at, COALESCE(sc.reminders, ''),
				ARRAY(SELECT r.offset_minutes FROM reminders r WHERE r.appointment_id = a.id)
			FROM appointments a JOIN slots s ON s.id = a.slot_id LEFT JOIN schedules sc ON sc.id = s.schedule_id
			WHERE a.status = `+booking.StatusBookedSQL+` AND a.start_at > $1 AND a.start_at <= $2
			ORDER BY a.start_at, a.id LIMIT $3`, now, now.Add(window), limit)
		if err != nil {
			return err
		}
		var cs []booking.ReminderCandidate
		var c booking.ReminderCandidate
		var done []int32
		_, err = pgx.ForEachRow(rows, []any{&c.AppointmentID, &c.StartAt, &c.Schedule, &done}, func() error {
			c.Done = c.Done[:0:0]
			for _, m := range done {
				c.Done = append(c.Done, int(m))
			}
			cs = append(cs, c)
			return nil
		})
		if err != nil {
			return err
		}
		var ns []booking.Notification
		for _, c := range cs {
			d := booking.DecideReminder(c, defaults, now)
			if d.Send == 0 {
				continue
			}
			for _, m := range d.Passed {
				tag, err := tx.Exec(ctx, `INSERT INTO reminders (appointment_id, offset_minutes, sent, created_at)
					VALUES ($1, $2, false, $3) ON CONFLICT DO NOTHING`, c.AppointmentID, m, now)
				if err != nil {
					return err
				}
				scan.Passed += int(tag.RowsAffected())
			}
			tag, err := tx.Exec(ctx, `INSERT INTO reminders (appointment_id, offset_minutes, sent, created_at)
				VALUES ($1, $2, true, $3) ON CONFLICT DO NOTHING`, c.AppointmentID, d.Send, now)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				ns = append(ns, booking.Notification{Kind: booking.NotifyReminder, AppointmentID: c.AppointmentID, Ref: fmt.Sprintf("%dm", d.Send)})
			}
		}
		scan.Sent = len(ns)
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return booking.ReminderScan{}, translate(err, "")
	}
	return scan, nil
}

func collectStrings(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
