package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// SendReminders is one reminder scan in one write transaction; see
// postgres.Store.SendReminders.
func (s *Store) SendReminders(ctx context.Context, defaults []time.Duration, now time.Time, limit int) (booking.ReminderScan, error) {
	now = micro(now)
	var scan booking.ReminderScan
	err := s.write(ctx, func(tx *sql.Tx) error {
		var own []string
		if err := eachRow(ctx, tx, `SELECT DISTINCT reminders FROM schedules WHERE reminders IS NOT NULL`, nil, func(r *sql.Rows) error {
			var v string
			if err := r.Scan(&v); err != nil {
				return err
			}
			own = append(own, v)
			return nil
		}); err != nil {
			return err
		}
		window := booking.ReminderWindow(defaults, own)
		if window == 0 {
			return nil
		}
		var cs []booking.ReminderCandidate
		if err := eachRow(ctx, tx, `SELECT a.id, a.start_at, coalesce(sc.reminders, ''),
				coalesce((SELECT group_concat(r.offset_minutes) FROM reminders r WHERE r.appointment_id = a.id), '')
			FROM appointments a JOIN slots s ON s.id = a.slot_id LEFT JOIN schedules sc ON sc.id = s.schedule_id
			WHERE a.status = `+booking.StatusBookedSQL+` AND a.start_at > ? AND a.start_at <= ?
			ORDER BY a.start_at, a.id LIMIT ?`, []any{ts(now), ts(now.Add(window)), limit}, func(r *sql.Rows) error {
			var c booking.ReminderCandidate
			var start int64
			var done string
			if err := r.Scan(&c.AppointmentID, &start, &c.Schedule, &done); err != nil {
				return err
			}
			c.StartAt = fromTS(start)
			for _, f := range strings.Split(done, ",") {
				if m, err := strconv.Atoi(f); err == nil {
					c.Done = append(c.Done, m)
				}
			}
			cs = append(cs, c)
			return nil
		}); err != nil {
			return err
		}
		var ns []booking.Notification
		for _, c := range cs {
			d := booking.DecideReminder(c, defaults, now)
			if d.Send == 0 {
				continue
			}
			for _, m := range d.Passed {
				res, err := tx.ExecContext(ctx, `INSERT INTO reminders (appointment_id, offset_minutes, sent, created_at)
					VALUES (?, ?, 0, ?) ON CONFLICT DO NOTHING`, c.AppointmentID, m, ts(now))
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n == 1 {
					scan.Passed++
				}
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO reminders (appointment_id, offset_minutes, sent, created_at)
				VALUES (?, ?, 1, ?) ON CONFLICT DO NOTHING`, c.AppointmentID, d.Send, ts(now))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				ns = append(ns, booking.Notification{Kind: booking.NotifyReminder, AppointmentID: c.AppointmentID, Ref: fmt.Sprintf("%dm", d.Send)})
			}
		}
		scan.Sent = len(ns)
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return booking.ReminderScan{}, mapErr(err, "")
	}
	return scan, nil
}
