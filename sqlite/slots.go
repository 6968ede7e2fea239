package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
)

// insertChunk is how many slots InsertSlots writes per transaction: large
// enough that commits (fsyncs) are rare, small enough that the writer is not
// held for long while bookings wait behind it.
const insertChunk = 5000

const slotCols = `id, resource_id, schedule_id, start_at, end_at, capacity, booked_count,
	opens_at, status, fee_cents, hold_seconds, round_id`

func scanSlot(sc interface{ Scan(...any) error }) (booking.Slot, error) {
	var sl booking.Slot
	var sched, round sql.NullInt64
	var start, end, opens int64
	if err := sc.Scan(&sl.ID, &sl.DoctorID, &sched, &start, &end, &sl.Capacity, &sl.BookedCount,
		&opens, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &round); err != nil {
		return sl, err
	}
	sl.ScheduleID, sl.RoundID = sched.Int64, round.Int64
	sl.StartAt, sl.EndAt, sl.OpensAt = fromTS(start), fromTS(end), fromTS(opens)
	return sl, nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

const insertSlotSQL = `INSERT INTO slots (resource_id, schedule_id, start_at, end_at, capacity, opens_at,
	status, fee_cents, hold_seconds, round_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func slotArgs(sl booking.Slot) []any {
	return []any{sl.DoctorID, nullID(sl.ScheduleID), ts(sl.StartAt), ts(sl.EndAt), sl.Capacity,
		ts(sl.OpensAt), sl.Status, sl.FeeCents, sl.HoldSeconds, nullID(sl.RoundID)}
}

// InsertSlots adds the slots whose (doctor, start) does not exist yet and
// reports how many it created. It commits every insertChunk rows (one
// prepared statement per chunk, ON CONFLICT DO NOTHING, counted by rows
// affected), so a large generation does not block bookings for long; an
// error leaves the earlier chunks committed, which is harmless because
// running it again adds only what is missing.
func (s *Store) InsertSlots(ctx context.Context, slots []booking.Slot) (int, error) {
	created := 0
	for len(slots) > 0 {
		chunk := slots[:min(insertChunk, len(slots))]
		slots = slots[len(chunk):]
		n := 0 // counted only once the chunk commits
		err := s.write(ctx, func(tx *sql.Tx) error {
			stmt, err := tx.PrepareContext(ctx, insertSlotSQL+` ON CONFLICT (resource_id, start_at) DO NOTHING`)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for _, sl := range chunk {
				res, err := stmt.ExecContext(ctx, slotArgs(sl.WithDefaults())...)
				if err != nil {
					return err
				}
				k, err := res.RowsAffected()
				if err != nil {
					return err
				}
				n += int(k)
			}
			if n == 0 {
				return nil
			}
			return writeAudit(ctx, tx, booking.AuditGeneration(ctx, time.Now(), chunk[0], n))
		})
		if err != nil {
			return created, mapErr(err, "doctor")
		}
		created += n
	}
	return created, nil
}

// CreateSlot adds one slot; an existing (doctor, start) is a conflict and
// an unknown doctor is not found.
func (s *Store) CreateSlot(ctx context.Context, sl booking.Slot) (booking.Slot, error) {
	sl = sl.WithDefaults()
	sl.StartAt, sl.EndAt, sl.OpensAt = micro(sl.StartAt), micro(sl.EndAt), micro(sl.OpensAt)
	sl.BookedCount = 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := exists(ctx, tx, `SELECT 1 FROM resources WHERE id = ?`, sl.DoctorID); err != nil {
			return notFoundAs(err, "doctor")
		}
		if sl.ScheduleID != 0 {
			if err := exists(ctx, tx, `SELECT 1 FROM schedules WHERE id = ?`, sl.ScheduleID); err != nil {
				return notFoundAs(err, "schedule")
			}
		}
		if err := tx.QueryRowContext(ctx, insertSlotSQL+` RETURNING id`, slotArgs(sl)...).Scan(&sl.ID); err != nil {
			return err
		}
		id, after := booking.SlotAudit(sl)
		return writeAudit(ctx, tx, booking.Audit(ctx, time.Now(), booking.AuditChange{Entity: booking.EntitySlot, ID: id, Action: "create", After: after}))
	})
	if err != nil {
		return booking.Slot{}, mapErr(err, "doctor")
	}
	return sl, nil
}

// GetSlot returns one slot as last committed.
func (s *Store) GetSlot(ctx context.Context, id int64) (booking.Slot, error) {
	sl, err := scanSlot(s.reader.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, id))
	if err != nil {
		return booking.Slot{}, mapErr(err, "slot")
	}
	return sl, nil
}

// ListSlots lists a doctor's slots starting in [from, to), by start.
func (s *Store) ListSlots(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Slot, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+slotCols+` FROM slots
		  WHERE resource_id = ? AND start_at >= ? AND start_at < ? ORDER BY start_at`,
		doctorID, ts(from), ts(to))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Slot{}
	for rows.Next() {
		sl, err := scanSlot(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, sl)
	}
	return out, mapErr(rows.Err(), "")
}

// ListSlotsPage lists one page of a doctor's slots by (start, id): a
// keyset read on the (resource_id, start_at) key, so a later page costs
// what the first does.
func (s *Store) ListSlotsPage(ctx context.Context, p booking.SlotPage) ([]booking.Slot, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	after := p.After
	if after.IsZero() || after.StartAt.Before(p.From) {
		after = booking.SlotCursor{StartAt: p.From}
	}
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+slotCols+` FROM slots
		  WHERE resource_id = ? AND (start_at, id) > (?, ?) AND start_at < ? ORDER BY start_at, id LIMIT ?`,
		p.DoctorID, ts(after.StartAt), after.ID, ts(p.To), p.Limit)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := make([]booking.Slot, 0, min(p.Limit, 64))
	for rows.Next() {
		sl, err := scanSlot(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, sl)
	}
	return out, mapErr(rows.Err(), "")
}

// UpdateSlot changes a slot's capacity or status. Capacity never goes below
// the places taken nor below the highest queue number in use (queue numbers
// stay within 1..capacity): either is a conflict.
func (s *Store) UpdateSlot(ctx context.Context, id int64, u booking.SlotUpdate) (booking.Slot, error) {
	if err := u.Validate(); err != nil {
		return booking.Slot{}, err
	}
	var sl booking.Slot
	err := s.write(ctx, func(tx *sql.Tx) error {
		before, err := scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, id))
		if err != nil {
			return notFoundAs(err, "slot")
		}
		if u.Capacity != nil {
			// Read under the write lock: nothing changes them before the update.
			var booked, top int
			if err := tx.QueryRowContext(ctx, `SELECT booked_count, coalesce((SELECT max(queue_no) FROM appointments
				WHERE slot_id = ?1 AND status IN `+booking.ActiveSQL+`), 0) FROM slots WHERE id = ?1`, id).Scan(&booked, &top); err != nil {
				return notFoundAs(err, "slot")
			}
			if err := booking.CapacityRefusal(id, *u.Capacity, booked, top); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE slots SET capacity = ? WHERE id = ?`, *u.Capacity, id); err != nil {
				return err
			}
		}
		if u.Status != nil {
			var closedBy sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT closed_by FROM slots WHERE id = ?`, id).Scan(&closedBy); err != nil {
				return notFoundAs(err, "slot")
			}
			if err := booking.ReopenRefusal(id, closedBy.Int64, *u.Status); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE slots SET status = ? WHERE id = ?`, *u.Status, id); err != nil {
				return err
			}
		}
		if u.Capacity != nil && *u.Capacity > before.Capacity {
			// New places are released places: the waitlist is offered them
			// first (no clock here: the offer job decides at its own).
			if err := s.reserve(ctx, tx, map[int64]int{id: *u.Capacity - before.Capacity}, time.Time{}); err != nil {
				return err
			}
		}
		if sl, err = scanSlot(tx.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, id)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditSlotUpdate(ctx, time.Now(), booking.SlotChange{CapacityBefore: before.Capacity, StatusBefore: before.Status, After: sl}))
	})
	if err != nil {
		return booking.Slot{}, mapErr(err, "slot")
	}
	return sl, nil
}

// MarkGenerated records the last local day schedule id was generated through.
func (s *Store) MarkGenerated(ctx context.Context, id int64, through string) error {
	return mapErr(s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE schedules SET generated_through = ? WHERE id = ?`, through, id)
		return err
	}), "")
}
