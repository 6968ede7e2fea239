package sqlite

// Rounds (docs/contracts/rounds.md): room-selection style
// allocation. A round's slots are ordinary slots with round_id set, booked
// through Book, whose decision adds the round's clock and the patient's
// quota (book.go); migrations/00004_rounds.sql has the tables, the quota's
// CHECK and the trigger that gives the quota back. The behaviour mirrors
// postgres/rounds.go; where PostgreSQL needs locks (the round's row in
// DecidePending), the single writer connection serializes instead.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// roomCols reads a room from resources r; its attributes are JSON text.
const roomCols = `r.id, r.name, r.timezone, coalesce(json_extract(r.attributes, '$.building'), ''),
	coalesce(json_extract(r.attributes, '$.floor'), 0), coalesce(json_extract(r.attributes, '$.nearDoor'), 0),
	coalesce(json_extract(r.attributes, '$.beds'), 0), r.created_at`

func scanRoom(sc interface{ Scan(...any) error }) (booking.Room, error) {
	var r booking.Room
	var created int64
	if err := sc.Scan(&r.ID, &r.Name, &r.TimeZone, &r.Building, &r.Floor, &r.NearDoor, &r.Beds, &created); err != nil {
		return r, err
	}
	r.CreatedAt = fromTS(created)
	return r, nil
}

// roomFilterSQL is the WHERE of a room filter on resources r, with the
// filter's values as ?n, ?n+1, ?n+2 (see roomFilterArgs). JSON true and
// false come out of json_extract as 1 and 0, which is how the driver binds
// a bool.
func roomFilterSQL(n int) string {
	return fmt.Sprintf(`(?%d = '' OR json_extract(r.attributes, '$.building') = ?%d)
		AND (?%d IS NULL OR json_extract(r.attributes, '$.floor') = ?%d)
		AND (?%d IS NULL OR json_extract(r.attributes, '$.nearDoor') = ?%d)`, n, n, n+1, n+1, n+2, n+2)
}

func roomFilterArgs(f booking.RoomFilter) []any {
	args := []any{f.Building, nil, nil}
	if f.Floor != nil {
		args[1] = *f.Floor
	}
	if f.NearDoor != nil {
		args[2] = *f.NearDoor
	}
	return args
}

// roomAttributes is the JSON of a room's attributes, with PostgreSQL's keys.
type roomAttributes struct {
	Building string `json:"building"`
	Floor    int    `json:"floor"`
	NearDoor bool   `json:"nearDoor"`
	Beds     int    `json:"beds"`
}

// CreateRoom adds a room resource; an empty time zone is UTC.
func (s *Store) CreateRoom(ctx context.Context, room booking.Room) (booking.Room, error) {
	if err := room.Validate(); err != nil {
		return booking.Room{}, err
	}
	if room.TimeZone == "" {
		room.TimeZone = "UTC"
	}
	room.CreatedAt = micro(orNow(room.CreatedAt))
	attrs, err := json.Marshal(roomAttributes{room.Building, room.Floor, room.NearDoor, room.Beds})
	if err != nil {
		return booking.Room{}, err
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO resources (kind, name, timezone, attributes, created_at)
			VALUES ('room', ?, ?, ?, ?) RETURNING id`,
			room.Name, room.TimeZone, string(attrs), ts(room.CreatedAt)).Scan(&room.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditRoomCreated(ctx, room.CreatedAt, room))
	})
	if err != nil {
		return booking.Room{}, mapErr(err, "")
	}
	return room, nil
}

// ListRooms lists the rooms passing f, by id.
func (s *Store) ListRooms(ctx context.Context, f booking.RoomFilter) ([]booking.Room, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+roomCols+` FROM resources r
		WHERE r.kind = 'room' AND `+roomFilterSQL(1)+` ORDER BY r.id`, roomFilterArgs(f)...)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Room{}
	for rows.Next() {
		r, err := scanRoom(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err(), "")
}

const roundCols = `id, name, opens_at, closes_at, term_start, term_end, quota, state, created_at, ` + lotteryCols

func scanRound(sc interface{ Scan(...any) error }) (booking.Round, error) {
	var r booking.Round
	var opens, closes, start, end, created int64
	var l lotteryRow
	if err := sc.Scan(append([]any{&r.ID, &r.Name, &opens, &closes, &start, &end, &r.Quota, &r.State, &created}, l.dest()...)...); err != nil {
		return r, err
	}
	r.Lottery = l.lottery()
	r.OpensAt, r.ClosesAt, r.TermStart, r.TermEnd = fromTS(opens), fromTS(closes), fromTS(start), fromTS(end)
	r.CreatedAt = fromTS(created)
	return r, nil
}

// CreateRound adds a DRAFT round; quota 0 is booking.DefaultRoundQuota.
func (s *Store) CreateRound(ctx context.Context, r booking.Round) (booking.Round, error) {
	if err := r.Validate(); err != nil {
		return booking.Round{}, err
	}
	r = r.WithDefaults()
	r.State = booking.RoundDraft
	r.OpensAt, r.ClosesAt, r.TermStart, r.TermEnd = micro(r.OpensAt), micro(r.ClosesAt), micro(r.TermStart), micro(r.TermEnd)
	r.CreatedAt = micro(orNow(r.CreatedAt))
	r.Lottery = normalLottery(r.Lottery)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO rounds (name, opens_at, closes_at, term_start, term_end, quota, state, created_at,
				lottery, registration_opens_at, registration_closes_at, selection_minutes, selection_group, selection_window_minutes, seed, seed_commitment)
			VALUES (?, ?, ?, ?, ?, ?, 'DRAFT', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			append([]any{r.Name, ts(r.OpensAt), ts(r.ClosesAt), ts(r.TermStart), ts(r.TermEnd), r.Quota, ts(r.CreatedAt)},
				lotteryArgs(r.Lottery)...)...).Scan(&r.ID); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditRoundCreated(ctx, r.CreatedAt, r))
	})
	if err != nil {
		return booking.Round{}, mapErr(err, "")
	}
	return r, nil
}

// GetRound returns one round as last committed.
func (s *Store) GetRound(ctx context.Context, id int64) (booking.Round, error) {
	r, err := scanRound(s.reader.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE id = ?`, id))
	if err != nil {
		return booking.Round{}, mapErr(err, "round")
	}
	return r, nil
}

// SetRoundState changes a round's stored state by booking.RoundTransition,
// in one write transaction, so that two admins' changes apply in turn.
func (s *Store) SetRoundState(ctx context.Context, id int64, state string, now time.Time) (booking.Round, error) {
	var out booking.Round
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := scanRound(tx.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE id = ?`, id))
		if err != nil {
			return err
		}
		out = r
		noop, err := booking.RoundTransition(r.State, state)
		if err != nil || noop {
			return err
		}
		// Conditional, like every transition: the rule stays in the statement.
		res, err := tx.ExecContext(ctx, `UPDATE rounds SET state = ? WHERE id = ? AND state = ?`, state, id, r.State)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return fmt.Errorf("sqlite: round %d changed under the write lock", id)
		}
		out.State = state
		return writeAudit(ctx, tx, booking.AuditRoundState(ctx, now, booking.RoundStateChange{RoundID: id, From: r.State, To: state}))
	})
	if err != nil {
		return booking.Round{}, mapErr(err, "round")
	}
	return out, nil
}

// addRoundSlotSQL makes the round ?2's slot of room ?1: the room as
// resource, the term, the room's beds, the round's opening, no fee.
const addRoundSlotSQL = `INSERT INTO slots (resource_id, start_at, end_at, capacity, opens_at, status, fee_cents, round_id)
	SELECT r.id, o.term_start, o.term_end, json_extract(r.attributes, '$.beds'), o.opens_at, ` + booking.SlotOpenSQL + `, 0, o.id
	  FROM resources r, rounds o WHERE r.id = ?1 AND r.kind = 'room' AND o.id = ?2
	RETURNING ` + slotCols

// AddRoundSlots adds one slot per room to a DRAFT round, in one write
// transaction. A room twice, or a room that already has a slot for the term
// (this round's or another's: its beds are offered once), is a conflict and
// adds nothing; so is an unknown room (not found).
func (s *Store) AddRoundSlots(ctx context.Context, roundID int64, roomIDs []int64) ([]booking.Slot, error) {
	if err := booking.RoomsTwice(roomIDs); err != nil {
		return nil, err
	}
	out := []booking.Slot{}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var state string
		if err := tx.QueryRowContext(ctx, `SELECT state FROM rounds WHERE id = ?`, roundID).Scan(&state); err != nil {
			return notFoundAs(err, "round")
		}
		if err := booking.RoundSlotsRefusal(state); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, addRoundSlotSQL)
		if err != nil {
			return err
		}
		defer stmt.Close()
		// A missing room is answered after the others are tried, so that
		// a conflict wins over it as in PostgreSQL's single INSERT.
		missing := false
		for _, id := range roomIDs {
			sl, err := scanSlot(stmt.QueryRowContext(ctx, id, roundID))
			switch {
			case errors.Is(err, sql.ErrNoRows):
				missing = true
				continue
			case constraintName(err) == booking.ConSlotResourceStart:
				return booking.Errorf(booking.CodeConflict, "a room already has a slot for this term")
			case err != nil:
				return err
			}
			out = append(out, sl)
		}
		if missing {
			return booking.NotFound("room")
		}
		return writeAudit(ctx, tx, booking.AuditRoundSlots(ctx, time.Now(), roundID, out)...)
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

// ListRoundSlots lists the round's slots whose room passes f, by slot id;
// an unknown round is not found.
func (s *Store) ListRoundSlots(ctx context.Context, roundID int64, f booking.RoomFilter) ([]booking.RoundSlot, error) {
	args := append([]any{roundID}, roomFilterArgs(f)...)
	rows, err := s.reader.QueryContext(ctx, `SELECT `+qualified("s", slotCols)+`, `+roomCols+`
		FROM slots s JOIN resources r ON r.id = s.resource_id
		WHERE s.round_id = ?1 AND `+roomFilterSQL(2)+` ORDER BY s.id`, args...)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.RoundSlot{}
	for rows.Next() {
		var rs booking.RoundSlot
		var sched, round sql.NullInt64
		var start, end, opens, created int64
		r := &rs.Room
		if err := rows.Scan(&rs.ID, &rs.DoctorID, &sched, &start, &end, &rs.Capacity, &rs.BookedCount,
			&opens, &rs.Status, &rs.FeeCents, &rs.HoldSeconds, &round,
			&r.ID, &r.Name, &r.TimeZone, &r.Building, &r.Floor, &r.NearDoor, &r.Beds, &created); err != nil {
			return nil, mapErr(err, "")
		}
		rs.ScheduleID, rs.RoundID = sched.Int64, round.Int64
		rs.StartAt, rs.EndAt, rs.OpensAt, r.CreatedAt = fromTS(start), fromTS(end), fromTS(opens), fromTS(created)
		out = append(out, rs)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, "")
	}
	if len(out) == 0 {
		if _, err := s.GetRound(ctx, roundID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// qualified prefixes each column of a column list with alias.
func qualified(alias, cols string) string {
	var b []byte
	start := true
	for i := 0; i < len(cols); i++ {
		c := cols[i]
		switch {
		case c == ',' || c == ' ' || c == '\n' || c == '\t':
			start = true
		case start:
			b = append(b, alias...)
			b = append(b, '.')
			start = false
		}
		b = append(b, c)
	}
	return string(b)
}

// --- applications ------------------------------------------------------------

const appCols = `id, round_id, patient_id, slot_id, status, coalesce(reason, ''), coalesce(appointment_id, 0),
	created_at, decided_at, idempotency_key, fingerprint`

func scanApplication(sc interface{ Scan(...any) error }) (booking.Application, error) {
	var a booking.Application
	var status, reason string
	var created int64
	var decided sql.NullInt64
	if err := sc.Scan(&a.ID, &a.RoundID, &a.PatientID, &a.SlotID, &status, &reason, &a.AppointmentID,
		&created, &decided, &a.IdempotencyKey, &a.Fingerprint); err != nil {
		return a, err
	}
	a.Status, a.Reason, a.CreatedAt = booking.ApplicationStatus(status), booking.Code(reason), fromTS(created)
	if decided.Valid {
		d := fromTS(decided.Int64)
		a.DecidedAt = &d
	}
	return a, nil
}

// submitSQL inserts the application when the slot is one of the round's;
// a taken (patient, key) inserts nothing, and SubmitApplication then finds
// the application that has it.
const submitSQL = `INSERT INTO round_applications
		(round_id, patient_id, slot_id, idempotency_key, fingerprint, status, created_at)
	SELECT s.round_id, ?2, s.id, ?4, ?5, 'PENDING', ?6 FROM slots s WHERE s.id = ?3 AND s.round_id = ?1
	ON CONFLICT (patient_id, idempotency_key) DO NOTHING
	RETURNING ` + appCols

// SubmitApplication stores a PENDING application for a slot of the round,
// durably (committed before it returns). The same patient and key find the
// existing application (existed), or CodeKeyReused when it was for
// something else; a slot not in the round is not found. Whether the round
// accepts is left to the decision, which answers it like Book.
func (s *Store) SubmitApplication(ctx context.Context, a booking.Application, now time.Time) (booking.Application, bool, error) {
	if a.Fingerprint == "" {
		a.Fingerprint = booking.ApplicationFingerprint(a.RoundID, a.SlotID)
	}
	now = micro(now)
	var out booking.Application
	existed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scanApplication(tx.QueryRowContext(ctx, submitSQL,
			a.RoundID, a.PatientID, a.SlotID, a.IdempotencyKey, a.Fingerprint, ts(now)))
		if err == nil {
			return writeAudit(ctx, tx, booking.AuditApplication(ctx, now, out))
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		out, err = scanApplication(tx.QueryRowContext(ctx, `SELECT `+appCols+` FROM round_applications
			WHERE patient_id = ? AND idempotency_key = ?`, a.PatientID, a.IdempotencyKey))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			// Nothing inserted and no such key: the slot is not in the round.
			return booking.NotFound("slot")
		case err != nil:
			return err
		case out.Fingerprint != a.Fingerprint:
			return booking.KeyReused(out.SlotID)
		}
		existed = true
		return nil
	})
	if err != nil {
		return booking.Application{}, false, mapErr(err, "patient")
	}
	return out, existed, nil
}

// GetApplication returns one application as last committed.
func (s *Store) GetApplication(ctx context.Context, id int64) (booking.Application, error) {
	a, err := scanApplication(s.reader.QueryRowContext(ctx,
		`SELECT `+appCols+` FROM round_applications WHERE id = ?`, id))
	if err != nil {
		return booking.Application{}, mapErr(err, "application")
	}
	return a, nil
}

// ListApplications lists q's applications through round_applications_queue_idx.
func (s *Store) ListApplications(ctx context.Context, q booking.ApplicationQuery) ([]booking.Application, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+appCols+` FROM round_applications
		WHERE round_id = ? AND status = ? AND id > ? ORDER BY id LIMIT ?`, q.RoundID, string(q.Status), q.AfterID, q.Limit)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	var out []booking.Application
	for rows.Next() {
		a, err := scanApplication(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, a)
	}
	return out, mapErr(rows.Err(), "")
}

// PendingRounds lists the rounds with PENDING applications, by id; each
// round is one probe of round_applications_queue_idx.
func (s *Store) PendingRounds(ctx context.Context) ([]int64, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT r.id FROM rounds r WHERE EXISTS (
		SELECT 1 FROM round_applications a WHERE a.round_id = r.id AND a.status = 'PENDING') ORDER BY r.id`)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, mapErr(err, "")
		}
		ids = append(ids, id)
	}
	return ids, mapErr(rows.Err(), "")
}

// DecidePending decides up to limit of the round's oldest PENDING
// applications in ONE write transaction, and returns them decided, in
// arrival order. Each is judged at its arrival (created_at) as on
// PostgreSQL: the round's clock at that moment, the booking decision at the
// latest arrival of its batch. The single writer connection (BEGIN IMMEDIATE) plays the
// part of PostgreSQL's lock on the round's row: two calls, from this process
// or another on the same file, run one after the other, so applications are
// decided in arrival order and each exactly once. Each run of consecutive
// applications for one slot is one batch of Book's decision (decideInTx),
// booked with the application's key so that a synchronous retry with that
// key replays the allocation.
func (s *Store) DecidePending(ctx context.Context, roundID int64, limit int, now time.Time) ([]booking.Application, error) {
	if limit <= 0 {
		return []booking.Application{}, nil
	}
	now = micro(now)
	s.stmts.prepare(ctx, s.writer)
	var out []booking.Application
	err := s.write(ctx, func(tx *sql.Tx) error {
		out = []booking.Application{}
		round, err := scanRound(tx.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE id = ?`, roundID))
		if err != nil {
			return notFoundAs(err, "round")
		}
		if err := eachRow(ctx, tx, `SELECT `+appCols+` FROM round_applications
			WHERE round_id = ? AND status = 'PENDING' ORDER BY id LIMIT ?`, []any{roundID, limit},
			func(rows *sql.Rows) error {
				a, err := scanApplication(rows)
				out = append(out, a)
				return err
			}); err != nil {
			return err
		}

		var ns []booking.Notification
		err = booking.DecideApplications(round, out, now, func(slotID int64, reqs []booking.BookRequest, at time.Time) ([]booking.BookResult, error) {
			res, rns, err := s.decideRun(ctx, tx, slotID, reqs, at)
			ns = append(ns, rns...)
			return res, err
		})
		if err != nil {
			return err
		}

		stmt, err := tx.PrepareContext(ctx, `UPDATE round_applications
			SET status = ?, reason = ?, appointment_id = ?, decided_at = ? WHERE id = ? AND status = 'PENDING'`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, a := range out {
			res, err := stmt.ExecContext(ctx, string(a.Status), nullText(string(a.Reason)), nullID(a.AppointmentID), ts(now), a.ID)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n != 1 {
				// The write lock makes this the only decider: a bug.
				return fmt.Errorf("sqlite: application %d changed under the write lock", a.ID)
			}
		}
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return nil, mapErr(err, "round")
	}
	return out, nil
}

// decideRun decides one batch of DecidePending inside tx, under a
// savepoint: SQLite undoes only the statement a constraint refused, so a
// violation rolls the batch back to its savepoint, and each request is then
// decided alone under a savepoint of its own, answered by the constraint
// that fired (as Book does with transactions). Only the notifications of
// what stays are returned.
func (s *Store) decideRun(ctx context.Context, tx *sql.Tx, slotID int64, reqs []booking.BookRequest,
	now time.Time) ([]booking.BookResult, []booking.Notification, error) {
	res, ns, v, err := s.decideSaved(ctx, tx, slotID, reqs, now)
	if err != nil || v == nil {
		return res, ns, err
	}
	ns = nil
	out, err := booking.DecideAlone(reqs, func(r booking.BookRequest) (booking.BookResult, error) {
		one, rns, v, err := s.decideSaved(ctx, tx, slotID, []booking.BookRequest{r}, now)
		switch {
		case err != nil:
			return booking.BookResult{}, err
		case v != nil:
			return answerViolation(ctx, tx, v, slotID, r)
		}
		ns = append(ns, rns...)
		return one[0], nil
	})
	return out, ns, err
}

// decideSaved runs decideInTx under a savepoint and, on a constraint
// violation, rolls back to it and returns the violation.
func (s *Store) decideSaved(ctx context.Context, tx *sql.Tx, slotID int64, reqs []booking.BookRequest,
	now time.Time) ([]booking.BookResult, []booking.Notification, *violation, error) {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT decide_batch`); err != nil {
		return nil, nil, nil, err
	}
	res, ns, err := s.decideInTx(ctx, tx, slotID, reqs, now, nil)
	if err == nil {
		_, err = tx.ExecContext(ctx, `RELEASE decide_batch`)
		return res, ns, nil, err
	}
	var v *violation
	if !errors.As(asViolation(err), &v) {
		return nil, nil, nil, err
	}
	if _, err := tx.ExecContext(ctx, `ROLLBACK TO decide_batch`); err != nil {
		return nil, nil, nil, err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE decide_batch`); err != nil {
		return nil, nil, nil, err
	}
	return nil, nil, v, nil
}

// RoundResults lists who holds which room: the active appointments of the
// round's slots (appointments_round_active_idx), by room name then bed; an
// unknown round is not found.
func (s *Store) RoundResults(ctx context.Context, roundID int64) ([]booking.Allocation, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT a.round_id, a.id, a.slot_id, a.patient_id, p.name_sealed, r.id, r.name,
			coalesce(json_extract(r.attributes, '$.building'), ''), coalesce(json_extract(r.attributes, '$.floor'), 0),
			coalesce(json_extract(r.attributes, '$.nearDoor'), 0), a.status, a.queue_no, a.created_at
		FROM appointments a
		JOIN slots s ON s.id = a.slot_id
		JOIN patients p ON p.id = a.patient_id
		JOIN resources r ON r.id = s.resource_id
		WHERE a.round_id = ? AND a.status IN `+booking.ActiveSQL+`
		ORDER BY r.name, a.queue_no, a.id`, roundID)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Allocation{}
	for rows.Next() {
		var al booking.Allocation
		var status string
		var created int64
		var name []byte
		if err := rows.Scan(&al.RoundID, &al.AppointmentID, &al.SlotID, &al.PatientID, &name, &al.RoomID,
			&al.RoomName, &al.Building, &al.Floor, &al.NearDoor, &status, &al.Bed, &created); err != nil {
			return nil, mapErr(err, "")
		}
		var err error
		if al.PatientName, err = s.keys.Open(pii.FieldName, name); err != nil {
			return nil, err
		}
		al.Status, al.AllocatedAt = booking.Status(status), fromTS(created)
		out = append(out, al)
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err, "")
	}
	if len(out) == 0 {
		if _, err := s.GetRound(ctx, roundID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// roundQuotaMismatchSQL compares each quota row with the patient's active
// appointments in the round, both ways (a missing row counts as 0): the
// active allocations counted per (round, patient) through
// appointments_round_active_idx, fully joined with round_quotas.
const roundQuotaMismatchSQL = `SELECT coalesce(q.round_id, c.round_id), coalesce(q.patient_id, c.patient_id),
		coalesce(q.used, 0), coalesce(c.n, 0)
	FROM round_quotas q FULL JOIN (
		SELECT round_id, patient_id, count(*) AS n FROM appointments
		 WHERE round_id IS NOT NULL AND status IN ` + booking.ActiveSQL + ` GROUP BY round_id, patient_id) c
		ON c.round_id = q.round_id AND c.patient_id = q.patient_id
	WHERE coalesce(q.used, 0) <> coalesce(c.n, 0)
	ORDER BY 1, 2`
