package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const slotColumns = `id, resource_id, COALESCE(schedule_id, 0), start_at, end_at, capacity, booked_count,
	opens_at, status, fee_cents, hold_seconds, COALESCE(round_id, 0)`

func scanSlot(r pgx.Row) (booking.Slot, error) {
	var s booking.Slot
	err := r.Scan(&s.ID, &s.DoctorID, &s.ScheduleID, &s.StartAt, &s.EndAt, &s.Capacity, &s.BookedCount,
		&s.OpensAt, &s.Status, &s.FeeCents, &s.HoldSeconds, &s.RoundID)
	s.StartAt, s.EndAt, s.OpensAt = s.StartAt.UTC(), s.EndAt.UTC(), s.OpensAt.UTC()
	return s, err
}

// nullID stores a zero id as NULL.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// InsertSlots adds the slots whose (doctor, start) does not exist yet and
// reports how many it created. The rows are streamed with COPY into a
// temporary table and moved with one INSERT ... ON CONFLICT DO NOTHING, so
// millions of slots cost one round trip of data and one statement, and
// running it twice (or from two processes at once) adds nothing the second
// time. New slots start with no places taken, whatever BookedCount says.
func (s *Store) InsertSlots(ctx context.Context, slots []booking.Slot) (int, error) {
	if len(slots) == 0 {
		return 0, nil
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, translate(err, "")
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	// No arguments: pgx sends these with the simple protocol, so no
	// prepared statement outlives the temporary table it names.
	if _, err := tx.Exec(ctx, `CREATE TEMP TABLE slots_in (
		resource_id bigint, schedule_id bigint, start_at timestamptz, end_at timestamptz,
		capacity integer, opens_at timestamptz, status text, fee_cents bigint, hold_seconds integer
	) ON COMMIT DROP`); err != nil {
		return 0, translate(err, "")
	}
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if i == len(slots) {
			return nil, nil
		}
		sl := slots[i].WithDefaults()
		i++
		return []any{sl.DoctorID, nullID(sl.ScheduleID), sl.StartAt, sl.EndAt, int32(sl.Capacity),
			sl.OpensAt, sl.Status, sl.FeeCents, int32(sl.HoldSeconds)}, nil
	})
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"slots_in"},
		[]string{"resource_id", "schedule_id", "start_at", "end_at", "capacity", "opens_at", "status", "fee_cents", "hold_seconds"},
		src); err != nil {
		return 0, translate(err, "")
	}
	tag, err := tx.Exec(ctx, `INSERT INTO slots (resource_id, schedule_id, start_at, end_at, capacity, opens_at,
			status, fee_cents, hold_seconds)
		SELECT resource_id, schedule_id, start_at, end_at, capacity, opens_at, status, fee_cents, hold_seconds
		FROM slots_in ORDER BY resource_id, start_at
		ON CONFLICT (resource_id, start_at) DO NOTHING`)
	if err != nil {
		return 0, translate(err, "")
	}
	if n := tag.RowsAffected(); n > 0 {
		if err := writeAudit(ctx, tx, booking.AuditGeneration(ctx, time.Now(), slots[0], int(n))); err != nil {
			return 0, translate(err, "")
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, translate(err, "")
	}
	return int(tag.RowsAffected()), nil
}

// CreateSlot adds one slot; an existing (doctor, start) is a conflict and an
// unknown doctor is not found.
func (s *Store) CreateSlot(ctx context.Context, sl booking.Slot) (booking.Slot, error) {
	sl = sl.WithDefaults()
	out, err := createAudited(s, ctx, booking.EntitySlot, scanSlot, booking.SlotAudit,
		`INSERT INTO slots (resource_id, schedule_id, start_at, end_at, capacity, opens_at, status, fee_cents, hold_seconds)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		 RETURNING `+slotColumns,
		sl.DoctorID, nullID(sl.ScheduleID), sl.StartAt, sl.EndAt, sl.Capacity, sl.OpensAt, sl.Status, sl.FeeCents, sl.HoldSeconds)
	return out, translate(err, "")
}

// GetSlot returns one slot.
func (s *Store) GetSlot(ctx context.Context, id int64) (booking.Slot, error) {
	sl, err := scanSlot(s.pool.QueryRow(ctx, sqlGetSlot, id))
	return sl, translate(err, "slot")
}

// sqlGetSlot reads one slot: the booking gates' load of a slot at its
// first request (warmed with the batch's statements, warm.go).
const sqlGetSlot = `SELECT ` + slotColumns + ` FROM slots WHERE id = $1`

// ListSlots lists a doctor's slots starting in [from, to), by start.
func (s *Store) ListSlots(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Slot, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+slotColumns+` FROM slots WHERE resource_id = $1 AND start_at >= $2 AND start_at < $3
		 ORDER BY start_at`, doctorID, from, to)
	sls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Slot, error) { return scanSlot(r) })
	return sls, translate(err, "")
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
	rows, _ := s.pool.Query(ctx,
		`SELECT `+slotColumns+` FROM slots WHERE resource_id = $1 AND (start_at, id) > ($2, $3) AND start_at < $4
		 ORDER BY start_at, id LIMIT $5`, p.DoctorID, after.StartAt, after.ID, p.To, p.Limit)
	sls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Slot, error) { return scanSlot(r) })
	return sls, translate(err, "")
}

// UpdateSlot changes capacity or status. Capacity never goes below the
// places taken, nor below the highest queue number in use (queue numbers
// stay within 1..capacity); both are conflicts. The slot row is locked
// first so that no booking changes the places while they are checked.
func (s *Store) UpdateSlot(ctx context.Context, id int64, u booking.SlotUpdate) (booking.Slot, error) {
	if err := u.Validate(); err != nil {
		return booking.Slot{}, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return booking.Slot{}, translate(err, "")
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	var booked, maxQueue, capBefore int
	var statusBefore string
	var closedBy int64
	if err := tx.QueryRow(ctx, `SELECT booked_count, capacity, status, COALESCE(closed_by, 0) FROM slots WHERE id = $1 FOR UPDATE`, id).Scan(&booked, &capBefore, &statusBefore, &closedBy); err != nil {
		return booking.Slot{}, translate(err, "slot")
	}
	if u.Status != nil {
		if err := booking.ReopenRefusal(id, closedBy, *u.Status); err != nil {
			return booking.Slot{}, err
		}
	}
	// A statement of its own, so that its snapshot is taken after the lock
	// and sees every booking committed before it.
	if err := tx.QueryRow(ctx,
		`SELECT COALESCE(max(queue_no), 0) FROM appointments WHERE slot_id = $1 AND status IN `+booking.ActiveSQL,
		id).Scan(&maxQueue); err != nil {
		return booking.Slot{}, translate(err, "")
	}
	if u.Capacity != nil {
		if err := booking.CapacityRefusal(id, *u.Capacity, booked, maxQueue); err != nil {
			return booking.Slot{}, err
		}
	}
	var capacity *int32
	if u.Capacity != nil {
		c := int32(*u.Capacity)
		capacity = &c
	}
	out, err := scanSlot(tx.QueryRow(ctx,
		`UPDATE slots SET capacity = COALESCE($2, capacity), status = COALESCE($3, status)
		 WHERE id = $1 RETURNING `+slotColumns, id, capacity, u.Status))
	if err != nil {
		return booking.Slot{}, translate(err, "slot")
	}
	if raised := out.Capacity - capBefore; raised > 0 {
		// New places are released places: the waitlist is offered them
		// first. No clock here: the offer job decides, at its own, whether
		// the slot is still bookable and returns the places if not.
		if err := s.reserve(ctx, tx, map[int64]int{id: raised}, time.Time{}); err != nil {
			return booking.Slot{}, translate(err, "")
		}
	}
	if err := writeAudit(ctx, tx, booking.AuditSlotUpdate(ctx, time.Now(), booking.SlotChange{CapacityBefore: capBefore, StatusBefore: statusBefore, After: out})); err != nil {
		return booking.Slot{}, translate(err, "")
	}
	if err := tx.Commit(ctx); err != nil {
		return booking.Slot{}, translate(err, "")
	}
	return out, nil
}

// MarkGenerated records the last local day schedule id was generated through.
func (s *Store) MarkGenerated(ctx context.Context, id int64, through string) error {
	_, err := s.pool.Exec(ctx, `UPDATE schedules SET generated_through = $2::date WHERE id = $1`, id, through)
	return translate(err, "")
}
