package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/slotd/slotd/booking"
)

// Waiting rooms (docs/clinic.md, "Waiting rooms"). The opening's row lock
// orders the queue: joins before the draw share it (they only insert), the
// draw and the joins after it take it alone (they number positions).

const openingColumns = `o.id, o.schedule_id, o.opens_at, o.seed, o.seed_commitment, o.created_at, o.drawn_at,
	o.admitted_through, o.admitted_at, (SELECT count(*) FROM opening_queue q WHERE q.opening_id = o.id),
	(SELECT resource_id FROM schedules WHERE id = o.schedule_id)`

func scanOpening(row pgx.Row) (booking.Opening, error) {
	var o booking.Opening
	err := row.Scan(&o.ID, &o.ScheduleID, &o.OpensAt, &o.Seed, &o.Commitment, &o.CreatedAt, &o.DrawnAt,
		&o.AdmittedThrough, &o.AdmittedAt, &o.Queued, &o.DoctorID)
	o.OpensAt, o.CreatedAt = o.OpensAt.UTC(), o.CreatedAt.UTC()
	for _, t := range []**time.Time{&o.DrawnAt, &o.AdmittedAt} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	return o, err
}

const openingEntryColumns = `id, opening_id, patient_id, joined_at, position, admitted_at`

func scanOpeningEntry(row pgx.Row) (booking.OpeningEntry, error) {
	var e booking.OpeningEntry
	var pos *int
	err := row.Scan(&e.ID, &e.OpeningID, &e.PatientID, &e.JoinedAt, &pos, &e.AdmittedAt)
	e.JoinedAt = e.JoinedAt.UTC()
	if e.AdmittedAt != nil {
		t := e.AdmittedAt.UTC()
		e.AdmittedAt = &t
	}
	if pos != nil {
		e.Position = *pos
	}
	return e, err
}

// lockOpening locks the opening's row in mode ("FOR SHARE", "FOR UPDATE"
// or "" for none) and then reads it: a statement of its own after the
// lock, because a locking SELECT's subquery (the queue's count) sees the
// snapshot taken before it waited, not what the lock's last holder
// committed.
func lockOpening(ctx context.Context, tx pgx.Tx, id int64, mode string) (booking.Opening, error) {
	if mode != "" {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM openings WHERE id = $1 `+mode, id).Scan(&one); err != nil {
			return booking.Opening{}, err
		}
	}
	return scanOpening(tx.QueryRow(ctx, `SELECT `+openingColumns+` FROM openings o WHERE o.id = $1`, id))
}

// CreateOpening announces o.
func (s *Store) CreateOpening(ctx context.Context, o booking.Opening, now time.Time) (booking.Opening, error) {
	now = micro(now)
	var out booking.Opening
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var sched, slots bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schedules WHERE id = $1),
			EXISTS (SELECT 1 FROM slots WHERE schedule_id = $1 AND opens_at = $2)`, o.ScheduleID, o.OpensAt).Scan(&sched, &slots); err != nil {
			return err
		}
		switch {
		case !sched:
			return booking.NotFound("schedule")
		case !slots:
			return &booking.Error{Code: booking.CodeInvalidRequest, Message: "no slot of this schedule opens at opensAt", Pointer: "/opensAt"}
		}
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO openings (schedule_id, opens_at, seed, seed_commitment, created_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, o.ScheduleID, o.OpensAt, o.Seed, booking.Commit(o.Seed), now).Scan(&id); err != nil {
			return err
		}
		var err error
		if out, err = lockOpening(ctx, tx, id, ""); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditOpening(ctx, now, out))
	})
	return out, translate(err, "schedule")
}

// GetOpening returns an opening.
func (s *Store) GetOpening(ctx context.Context, id int64) (booking.Opening, error) {
	o, err := scanOpening(s.pool.QueryRow(ctx, `SELECT `+openingColumns+` FROM openings o WHERE o.id = $1`, id))
	return o, translate(err, "opening")
}

// ListOpenings lists the openings after afterID, by id.
func (s *Store) ListOpenings(ctx context.Context, afterID int64, limit int) ([]booking.Opening, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+openingColumns+` FROM openings o WHERE o.id > $1
		ORDER BY o.id LIMIT $2`, afterID, limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Opening, error) { return scanOpening(r) })
	if out == nil {
		out = []booking.Opening{}
	}
	return out, translate(err, "")
}

// JoinOpening gives patientID a place in the opening's queue. Before the
// opening the row is shared (joins run side by side; the draw waits for
// them); from the draw on it is taken alone, to number the newcomer.
func (s *Store) JoinOpening(ctx context.Context, openingID, patientID int64, now time.Time) (booking.OpeningEntry, booking.Opening, bool, error) {
	now = micro(now)
	var e booking.OpeningEntry
	var o booking.Opening
	existed := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if o, err = lockOpening(ctx, tx, openingID, "FOR SHARE"); err != nil {
			return err
		}
		if o.DrawnAt != nil || o.DrawDue(now) {
			// A share lock is not upgraded while others hold it: start over
			// with the row alone.
			return errDrawn
		}
		e, existed, err = insertEntry(ctx, tx, o, patientID, now)
		return err
	})
	if errors.Is(err, errDrawn) {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			var err error
			if o, _, err = drawOpening(ctx, tx, openingID, now); err != nil {
				return err
			}
			e, existed, err = insertEntry(ctx, tx, o, patientID, now)
			return err
		})
	}
	if err != nil {
		return booking.OpeningEntry{}, booking.Opening{}, false, translate(err, "opening")
	}
	if !existed {
		o.Queued++
	}
	return e, o, existed, nil
}

// errDrawn sends JoinOpening to its exclusive path.
var errDrawn = errors.New("the opening is drawn: join under its lock")

// insertEntry inserts patientID's entry unless there is one (then returned
// with existed): with a position after the draw (o read under the row's
// exclusive lock), without one before it.
func insertEntry(ctx context.Context, tx pgx.Tx, o booking.Opening, patientID int64, now time.Time) (booking.OpeningEntry, bool, error) {
	var pos *int
	if o.DrawnAt != nil {
		p := o.Queued + 1
		pos = &p
	}
	e, err := scanOpeningEntry(tx.QueryRow(ctx, `INSERT INTO opening_queue (opening_id, patient_id, joined_at, position)
		VALUES ($1, $2, $3, $4) ON CONFLICT (opening_id, patient_id) DO NOTHING RETURNING `+openingEntryColumns,
		o.ID, patientID, now, pos))
	if errors.Is(err, pgx.ErrNoRows) {
		// A first join of the same person committed before this one.
		e, err = scanOpeningEntry(tx.QueryRow(ctx, `SELECT `+openingEntryColumns+` FROM opening_queue
			WHERE opening_id = $1 AND patient_id = $2`, o.ID, patientID))
		return e, true, err
	}
	return e, false, err
}

// OpeningEntry returns patientID's entry in the opening's queue.
func (s *Store) OpeningEntry(ctx context.Context, openingID, patientID int64) (booking.OpeningEntry, booking.Opening, error) {
	o, err := s.GetOpening(ctx, openingID)
	if err != nil {
		return booking.OpeningEntry{}, booking.Opening{}, err
	}
	e, err := scanOpeningEntry(s.pool.QueryRow(ctx, `SELECT `+openingEntryColumns+` FROM opening_queue
		WHERE opening_id = $1 AND patient_id = $2`, openingID, patientID))
	return e, o, translate(err, "queue entry")
}

// DrawOpening orders the opening's queue once, under its row lock.
func (s *Store) DrawOpening(ctx context.Context, openingID int64, now time.Time) (booking.Opening, bool, error) {
	now = micro(now)
	var o booking.Opening
	drew := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		o, drew, err = drawOpening(ctx, tx, openingID, now)
		return err
	})
	return o, drew, translate(err, "opening")
}

// drawOpening locks the opening in tx and, when its draw is due, writes
// the positions of booking.QueueOrder and drawn_at.
func drawOpening(ctx context.Context, tx pgx.Tx, openingID int64, now time.Time) (booking.Opening, bool, error) {
	o, err := lockOpening(ctx, tx, openingID, "FOR UPDATE")
	if err != nil || !o.DrawDue(now) {
		return o, false, err
	}
	rows, _ := tx.Query(ctx, `SELECT `+openingEntryColumns+` FROM opening_queue WHERE opening_id = $1`, openingID)
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.OpeningEntry, error) { return scanOpeningEntry(r) })
	if err != nil {
		return o, false, err
	}
	order := booking.QueueOrder(o, entries)
	if _, err := tx.Exec(ctx, `UPDATE opening_queue q SET position = v.pos
		FROM unnest($2::bigint[]) WITH ORDINALITY AS v(id, pos)
		WHERE q.id = v.id AND q.opening_id = $1`, openingID, order); err != nil {
		return o, false, err
	}
	if _, err := tx.Exec(ctx, `UPDATE openings SET drawn_at = $2 WHERE id = $1`, openingID, now); err != nil {
		return o, false, err
	}
	o.DrawnAt = &now
	return o, true, writeAudit(ctx, tx, booking.AuditOpeningDrawn(ctx, now, o, len(entries)))
}

// AdmitOpening admits up to r.Budget more positions of the opening, within
// the places nobody admitted holds. The room is read in one statement (one
// snapshot: a booking of an admitted person moves both of its counts or
// neither); the conditional update lets one instance per AdmitTick admit.
func (s *Store) AdmitOpening(ctx context.Context, r booking.AdmitRequest) (booking.Opening, error) {
	now := micro(r.Now)
	o, err := s.GetOpening(ctx, r.OpeningID)
	if err != nil || o.DrawnAt == nil {
		return o, err
	}
	var room booking.OpeningRoom
	if err := s.pool.QueryRow(ctx, openingRoomSQL, o.ScheduleID, o.OpensAt, o.ID, now.Add(-r.TTL)).Scan(&room.Free, &room.Holding); err != nil {
		return o, translate(err, "")
	}
	k := o.Admit(r.Budget, room)
	if k == 0 {
		return o, nil
	}
	admitted := false
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE openings SET admitted_through = admitted_through + $2, admitted_at = $3
			WHERE id = $1 AND admitted_through = $4 AND (admitted_at IS NULL OR admitted_at <= $5)`,
			o.ID, k, now, o.AdmittedThrough, now.Add(-booking.AdmitTick))
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		admitted = true
		_, err = tx.Exec(ctx, `UPDATE opening_queue SET admitted_at = $2
			WHERE opening_id = $1 AND position > $3 AND position <= $4`, o.ID, now, o.AdmittedThrough, o.AdmittedThrough+k)
		return err
	})
	if err != nil {
		return o, translate(err, "")
	}
	if admitted {
		o.AdmittedThrough += k
		o.AdmittedAt = &now
	}
	return o, nil
}

// openingRoomSQL reads an opening's booking.OpeningRoom: the free places of
// its slots ($1 schedule, $2 opening time) and its admitted ($3 opening)
// since $4 without an active booking of one.
const openingRoomSQL = `SELECT
	(SELECT coalesce(sum(GREATEST(capacity - booked_count, 0)), 0) FROM slots WHERE schedule_id = $1 AND opens_at = $2 AND status = 'OPEN'),
	(SELECT count(*) FROM opening_queue q WHERE q.opening_id = $3 AND q.admitted_at > $4
	  AND NOT EXISTS (SELECT 1 FROM appointments a JOIN slots t ON t.id = a.slot_id
	    WHERE a.patient_id = q.patient_id AND t.schedule_id = $1 AND t.opens_at = $2 AND a.status IN ` + booking.ActiveSQL + `))`

// OpeningsDue lists the openings to draw or admit from at now.
func (s *Store) OpeningsDue(ctx context.Context, now time.Time) ([]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT o.id FROM openings o WHERE o.opens_at <= $1 AND o.opens_at > $2
		AND (o.drawn_at IS NULL OR (o.admitted_through < (SELECT count(*) FROM opening_queue q WHERE q.opening_id = o.id)
		  AND EXISTS (SELECT 1 FROM slots t WHERE t.schedule_id = o.schedule_id AND t.opens_at = o.opens_at AND t.status = 'OPEN' AND t.booked_count < t.capacity)))
		ORDER BY o.id`, now, now.Add(-booking.AdmitHorizon))
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, translate(err, "")
}

// maxServedRows bounds the places an opening's report reads.
const maxServedRows = 100000

// OpeningFacts reads what the opening's report needs.
func (s *Store) OpeningFacts(ctx context.Context, openingID int64) (booking.OpeningFacts, error) {
	var f booking.OpeningFacts
	o, err := s.GetOpening(ctx, openingID)
	if err != nil {
		return f, err
	}
	f.Opening = o
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(sum(capacity), 0), coalesce(sum(LEAST(booked_count, capacity)), 0),
		(SELECT min(a.created_at) FROM appointments a JOIN slots t ON t.id = a.slot_id
		  WHERE t.schedule_id = $1 AND t.opens_at = $2 AND a.status IN `+booking.ActiveSQL+`),
		(SELECT max(a.created_at) FROM appointments a JOIN slots t ON t.id = a.slot_id
		  WHERE t.schedule_id = $1 AND t.opens_at = $2 AND a.status IN `+booking.ActiveSQL+`)
		FROM slots WHERE schedule_id = $1 AND opens_at = $2`, o.ScheduleID, o.OpensAt).Scan(&f.Places, &f.Sold, &f.FirstSale, &f.LastSale); err != nil {
		return f, translate(err, "")
	}
	for _, t := range []**time.Time{&f.FirstSale, &f.LastSale} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	rows, _ := s.pool.Query(ctx, `SELECT q.position, a.slot_id, a.created_at
		FROM appointments a JOIN slots t ON t.id = a.slot_id
		JOIN opening_queue q ON q.opening_id = $3 AND q.patient_id = a.patient_id
		WHERE t.schedule_id = $1 AND t.opens_at = $2 AND a.status IN `+booking.ActiveSQL+` AND q.position IS NOT NULL
		ORDER BY a.created_at, a.id LIMIT $4`, o.ScheduleID, o.OpensAt, openingID, maxServedRows)
	f.Served, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Served, error) {
		var sv booking.Served
		err := r.Scan(&sv.Position, &sv.SlotID, &sv.At)
		sv.At = sv.At.UTC()
		return sv, err
	})
	return f, translate(err, "")
}

// OpeningDraw returns the opening's published draw.
func (s *Store) OpeningDraw(ctx context.Context, openingID int64) (booking.Draw, error) {
	o, err := s.GetOpening(ctx, openingID)
	if err != nil {
		return booking.Draw{}, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT id FROM opening_queue WHERE opening_id = $1 AND joined_at < $2
		AND position IS NOT NULL ORDER BY position`, openingID, o.OpensAt)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return booking.Draw{}, translate(err, "")
	}
	return o.PublishedDraw(ids)
}
