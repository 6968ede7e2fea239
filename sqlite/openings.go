package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// Waiting rooms (docs/clinic.md, "Waiting rooms"), mirroring
// postgres/openings.go; the single writer connection serializes what
// PostgreSQL orders with the opening's row lock.

const openingCols = `o.id, o.schedule_id, o.opens_at, o.seed, o.seed_commitment, o.created_at, o.drawn_at,
	o.admitted_through, o.admitted_at, (SELECT count(*) FROM opening_queue q WHERE q.opening_id = o.id),
	(SELECT resource_id FROM schedules WHERE id = o.schedule_id)`

func scanOpening(sc interface{ Scan(...any) error }) (booking.Opening, error) {
	var o booking.Opening
	var opens, created int64
	var drawn, admitted sql.NullInt64
	if err := sc.Scan(&o.ID, &o.ScheduleID, &opens, &o.Seed, &o.Commitment, &created, &drawn,
		&o.AdmittedThrough, &admitted, &o.Queued, &o.DoctorID); err != nil {
		return o, err
	}
	o.OpensAt, o.CreatedAt = fromTS(opens), fromTS(created)
	if drawn.Valid {
		t := fromTS(drawn.Int64)
		o.DrawnAt = &t
	}
	if admitted.Valid {
		t := fromTS(admitted.Int64)
		o.AdmittedAt = &t
	}
	return o, nil
}

const openingEntryCols = `id, opening_id, patient_id, joined_at, position, admitted_at`

func scanOpeningEntry(sc interface{ Scan(...any) error }) (booking.OpeningEntry, error) {
	var e booking.OpeningEntry
	var joined int64
	var pos, admitted sql.NullInt64
	if err := sc.Scan(&e.ID, &e.OpeningID, &e.PatientID, &joined, &pos, &admitted); err != nil {
		return e, err
	}
	e.JoinedAt, e.Position = fromTS(joined), int(pos.Int64)
	if admitted.Valid {
		t := fromTS(admitted.Int64)
		e.AdmittedAt = &t
	}
	return e, nil
}

func getOpening(ctx context.Context, q querier, id int64) (booking.Opening, error) {
	return scanOpening(q.QueryRowContext(ctx, `SELECT `+openingCols+` FROM openings o WHERE o.id = ?`, id))
}

// CreateOpening announces o.
func (s *Store) CreateOpening(ctx context.Context, o booking.Opening, now time.Time) (booking.Opening, error) {
	now = micro(now)
	var out booking.Opening
	err := s.write(ctx, func(tx *sql.Tx) error {
		var sched, slots bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM schedules WHERE id = ?1),
			EXISTS (SELECT 1 FROM slots WHERE schedule_id = ?1 AND opens_at = ?2)`, o.ScheduleID, ts(o.OpensAt)).Scan(&sched, &slots); err != nil {
			return err
		}
		switch {
		case !sched:
			return booking.NotFound("schedule")
		case !slots:
			return &booking.Error{Code: booking.CodeInvalidRequest, Message: "no slot of this schedule opens at opensAt", Pointer: "/opensAt"}
		}
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO openings (schedule_id, opens_at, seed, seed_commitment, created_at)
			VALUES (?, ?, ?, ?, ?) RETURNING id`, o.ScheduleID, ts(o.OpensAt), o.Seed, booking.Commit(o.Seed), ts(now)).Scan(&id); err != nil {
			return err
		}
		var err error
		if out, err = getOpening(ctx, tx, id); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditOpening(ctx, now, out))
	})
	return out, mapErr(err, "schedule")
}

// GetOpening returns an opening.
func (s *Store) GetOpening(ctx context.Context, id int64) (booking.Opening, error) {
	o, err := getOpening(ctx, s.reader, id)
	return o, mapErr(err, "opening")
}

// ListOpenings lists the openings after afterID, by id.
func (s *Store) ListOpenings(ctx context.Context, afterID int64, limit int) ([]booking.Opening, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+openingCols+` FROM openings o WHERE o.id > ?
		ORDER BY o.id LIMIT ?`, afterID, limit)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Opening{}
	for rows.Next() {
		o, err := scanOpening(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, o)
	}
	return out, mapErr(rows.Err(), "")
}

// JoinOpening gives patientID a place in the opening's queue, in one write
// transaction: a retry (or a race of them) finds the first entry.
func (s *Store) JoinOpening(ctx context.Context, openingID, patientID int64, now time.Time) (booking.OpeningEntry, booking.Opening, bool, error) {
	now = micro(now)
	var e booking.OpeningEntry
	var o booking.Opening
	existed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if o, _, err = drawOpening(ctx, tx, openingID, now); err != nil {
			return err
		}
		e, err = scanOpeningEntry(tx.QueryRowContext(ctx, `SELECT `+openingEntryCols+` FROM opening_queue
			WHERE opening_id = ? AND patient_id = ?`, openingID, patientID))
		if err == nil {
			existed = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// After the draw a newcomer's place is the next one at once.
		var pos any
		if o.DrawnAt != nil {
			pos = o.Queued + 1
		}
		if e, err = scanOpeningEntry(tx.QueryRowContext(ctx, `INSERT INTO opening_queue (opening_id, patient_id, joined_at, position)
			VALUES (?, ?, ?, ?) RETURNING `+openingEntryCols, openingID, patientID, ts(now), pos)); err != nil {
			return err
		}
		o.Queued++
		return nil
	})
	if err != nil {
		return booking.OpeningEntry{}, booking.Opening{}, false, mapErr(err, "opening")
	}
	return e, o, existed, nil
}

// OpeningEntry returns patientID's entry in the opening's queue.
func (s *Store) OpeningEntry(ctx context.Context, openingID, patientID int64) (booking.OpeningEntry, booking.Opening, error) {
	o, err := getOpening(ctx, s.reader, openingID)
	if err != nil {
		return booking.OpeningEntry{}, booking.Opening{}, mapErr(err, "opening")
	}
	e, err := scanOpeningEntry(s.reader.QueryRowContext(ctx, `SELECT `+openingEntryCols+` FROM opening_queue
		WHERE opening_id = ? AND patient_id = ?`, openingID, patientID))
	return e, o, mapErr(err, "queue entry")
}

// DrawOpening orders the opening's queue once, in one write transaction.
func (s *Store) DrawOpening(ctx context.Context, openingID int64, now time.Time) (booking.Opening, bool, error) {
	now = micro(now)
	var o booking.Opening
	drew := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		o, drew, err = drawOpening(ctx, tx, openingID, now)
		return err
	})
	return o, drew, mapErr(err, "opening")
}

// drawOpening reads the opening in tx and, when its draw is due, writes the
// positions of booking.QueueOrder and drawn_at.
func drawOpening(ctx context.Context, tx *sql.Tx, openingID int64, now time.Time) (booking.Opening, bool, error) {
	o, err := getOpening(ctx, tx, openingID)
	if err != nil || !o.DrawDue(now) {
		return o, false, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+openingEntryCols+` FROM opening_queue WHERE opening_id = ?`, openingID)
	if err != nil {
		return o, false, err
	}
	var entries []booking.OpeningEntry
	for rows.Next() {
		e, err := scanOpeningEntry(rows)
		if err != nil {
			rows.Close()
			return o, false, err
		}
		entries = append(entries, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return o, false, err
	}
	for k, id := range booking.QueueOrder(o, entries) {
		if _, err := tx.ExecContext(ctx, `UPDATE opening_queue SET position = ? WHERE id = ?`, k+1, id); err != nil {
			return o, false, err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE openings SET drawn_at = ? WHERE id = ?`, ts(now), openingID); err != nil {
		return o, false, err
	}
	o.DrawnAt = &now
	return o, true, writeAudit(ctx, tx, booking.AuditOpeningDrawn(ctx, now, o, len(entries)))
}

// AdmitOpening admits up to r.Budget more positions of the opening, within
// the places nobody admitted holds.
func (s *Store) AdmitOpening(ctx context.Context, r booking.AdmitRequest) (booking.Opening, error) {
	now := micro(r.Now)
	var o booking.Opening
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if o, err = getOpening(ctx, tx, r.OpeningID); err != nil {
			return err
		}
		if o.DrawnAt == nil || (o.AdmittedAt != nil && now.Sub(*o.AdmittedAt) < booking.AdmitTick) {
			return nil
		}
		var room booking.OpeningRoom
		if err := tx.QueryRowContext(ctx, openingRoomSQL, o.ScheduleID, ts(o.OpensAt), o.ID, ts(now.Add(-r.TTL))).Scan(&room.Free, &room.Holding); err != nil {
			return err
		}
		k := o.Admit(r.Budget, room)
		if k == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE openings SET admitted_through = admitted_through + ?, admitted_at = ?
			WHERE id = ?`, k, ts(now), o.ID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE opening_queue SET admitted_at = ?
			WHERE opening_id = ? AND position > ? AND position <= ?`, ts(now), o.ID, o.AdmittedThrough, o.AdmittedThrough+k); err != nil {
			return err
		}
		o.AdmittedThrough += k
		o.AdmittedAt = &now
		return nil
	})
	return o, mapErr(err, "opening")
}

// openingRoomSQL reads an opening's booking.OpeningRoom: the free places of
// its slots (?1 schedule, ?2 opening time) and its admitted (?3 opening)
// since ?4 without an active booking of one. A slot over its capacity by
// walk-ins has no free place (SQLite's two-argument max is PostgreSQL's GREATEST).
const openingRoomSQL = `SELECT
	(SELECT coalesce(sum(max(capacity - booked_count, 0)), 0) FROM slots WHERE schedule_id = ?1 AND opens_at = ?2 AND status = 'OPEN'),
	(SELECT count(*) FROM opening_queue q WHERE q.opening_id = ?3 AND q.admitted_at > ?4
	  AND NOT EXISTS (SELECT 1 FROM appointments a JOIN slots t ON t.id = a.slot_id
	    WHERE a.patient_id = q.patient_id AND t.schedule_id = ?1 AND t.opens_at = ?2 AND a.status IN ` + booking.ActiveSQL + `))`

// OpeningsDue lists the openings to draw or admit from at now.
func (s *Store) OpeningsDue(ctx context.Context, now time.Time) ([]int64, error) {
	ids, err := queryIDs(ctx, s.reader, `SELECT o.id FROM openings o WHERE o.opens_at <= ?1 AND o.opens_at > ?2
		AND (o.drawn_at IS NULL OR (o.admitted_through < (SELECT count(*) FROM opening_queue q WHERE q.opening_id = o.id)
		  AND EXISTS (SELECT 1 FROM slots t WHERE t.schedule_id = o.schedule_id AND t.opens_at = o.opens_at AND t.status = 'OPEN' AND t.booked_count < t.capacity)))
		ORDER BY o.id`, ts(now), ts(now.Add(-booking.AdmitHorizon)))
	return ids, mapErr(err, "")
}

// maxServedRows bounds the places an opening's report reads.
const maxServedRows = 100000

// OpeningFacts reads what the opening's report needs.
func (s *Store) OpeningFacts(ctx context.Context, openingID int64) (booking.OpeningFacts, error) {
	var f booking.OpeningFacts
	o, err := getOpening(ctx, s.reader, openingID)
	if err != nil {
		return f, mapErr(err, "opening")
	}
	f.Opening = o
	var first, last sql.NullInt64
	if err := s.reader.QueryRowContext(ctx, `SELECT coalesce(sum(capacity), 0), coalesce(sum(min(booked_count, capacity)), 0),
		(SELECT min(a.created_at) FROM appointments a JOIN slots t ON t.id = a.slot_id
		  WHERE t.schedule_id = ?1 AND t.opens_at = ?2 AND a.status IN `+booking.ActiveSQL+`),
		(SELECT max(a.created_at) FROM appointments a JOIN slots t ON t.id = a.slot_id
		  WHERE t.schedule_id = ?1 AND t.opens_at = ?2 AND a.status IN `+booking.ActiveSQL+`)
		FROM slots WHERE schedule_id = ?1 AND opens_at = ?2`, o.ScheduleID, ts(o.OpensAt)).Scan(&f.Places, &f.Sold, &first, &last); err != nil {
		return f, mapErr(err, "")
	}
	if first.Valid {
		a, b := fromTS(first.Int64), fromTS(last.Int64)
		f.FirstSale, f.LastSale = &a, &b
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT q.position, a.slot_id, a.created_at
		FROM appointments a JOIN slots t ON t.id = a.slot_id
		JOIN opening_queue q ON q.opening_id = ?3 AND q.patient_id = a.patient_id
		WHERE t.schedule_id = ?1 AND t.opens_at = ?2 AND a.status IN `+booking.ActiveSQL+` AND q.position IS NOT NULL
		ORDER BY a.created_at, a.id LIMIT ?4`, o.ScheduleID, ts(o.OpensAt), openingID, maxServedRows)
	if err != nil {
		return f, mapErr(err, "")
	}
	defer rows.Close()
	for rows.Next() {
		var sv booking.Served
		var at int64
		if err := rows.Scan(&sv.Position, &sv.SlotID, &at); err != nil {
			return f, mapErr(err, "")
		}
		sv.At = fromTS(at)
		f.Served = append(f.Served, sv)
	}
	return f, mapErr(rows.Err(), "")
}

// OpeningDraw returns the opening's published draw.
func (s *Store) OpeningDraw(ctx context.Context, openingID int64) (booking.Draw, error) {
	o, err := getOpening(ctx, s.reader, openingID)
	if err != nil {
		return booking.Draw{}, mapErr(err, "opening")
	}
	ids, err := queryIDs(ctx, s.reader, `SELECT id FROM opening_queue WHERE opening_id = ? AND joined_at < ?
		AND position IS NOT NULL ORDER BY position`, openingID, ts(o.OpensAt))
	if err != nil {
		return booking.Draw{}, mapErr(err, "")
	}
	return o.PublishedDraw(ids)
}
