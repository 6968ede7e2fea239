package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
)

// Rounds (docs/contracts/rounds.md). A round's slots are ordinary slots
// with round_id set, booked through Book, whose decision adds the round's
// clock and the patient's quota (book.go); migrations/00004_rounds.sql has
// the tables, the quota's CHECK and the trigger that gives the quota back.

// Rooms keep their attributes in resources.attributes.
const roomColumns = `r.id, r.name, r.timezone, COALESCE(r.attributes->>'building', ''),
	COALESCE((r.attributes->>'floor')::integer, 0), COALESCE((r.attributes->>'nearDoor')::boolean, false),
	COALESCE((r.attributes->>'beds')::integer, 0), r.created_at`

func scanRoom(row pgx.Row) (booking.Room, error) {
	var r booking.Room
	err := row.Scan(&r.ID, &r.Name, &r.TimeZone, &r.Building, &r.Floor, &r.NearDoor, &r.Beds, &r.CreatedAt)
	r.CreatedAt = r.CreatedAt.UTC()
	return r, err
}

// roomFilterSQL is the WHERE of a room filter on resources r, with the
// filter's values as $n, $n+1, $n+2.
func roomFilterSQL(n int) string {
	return fmt.Sprintf(`($%d::text = '' OR r.attributes->>'building' = $%d)
		AND ($%d::integer IS NULL OR (r.attributes->>'floor')::integer = $%d)
		AND ($%d::boolean IS NULL OR (r.attributes->>'nearDoor')::boolean = $%d)`, n, n, n+1, n+1, n+2, n+2)
}

// CreateRoom adds a room resource; an empty time zone is UTC.
func (s *Store) CreateRoom(ctx context.Context, room booking.Room) (booking.Room, error) {
	if err := room.Validate(); err != nil {
		return booking.Room{}, err
	}
	if room.TimeZone == "" {
		room.TimeZone = "UTC"
	}
	out, err := createAudited(s, ctx, booking.EntityRoom, scanRoom,
		func(r booking.Room) (int64, any) { return r.ID, map[string]any{"beds": r.Beds} },
		`INSERT INTO resources AS r (kind, name, timezone, attributes)
		VALUES ('room', $1, $2, jsonb_build_object('building', $3::text, 'floor', $4::integer,
			'nearDoor', $5::boolean, 'beds', $6::integer))
		RETURNING `+roomColumns, room.Name, room.TimeZone, room.Building, room.Floor, room.NearDoor, room.Beds)
	return out, translate(err, "")
}

// ListRooms lists the rooms passing f, by id.
func (s *Store) ListRooms(ctx context.Context, f booking.RoomFilter) ([]booking.Room, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+roomColumns+` FROM resources r WHERE r.kind = 'room' AND `+
		roomFilterSQL(1)+` ORDER BY r.id`, f.Building, f.Floor, f.NearDoor)
	rs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Room, error) { return scanRoom(r) })
	return rs, translate(err, "")
}

const roundColumns = `id, name, opens_at, closes_at, term_start, term_end, quota, state, created_at, ` + lotteryColumns

func scanRound(row pgx.Row) (booking.Round, error) {
	var r booking.Round
	var l lotteryRow
	err := row.Scan(append([]any{&r.ID, &r.Name, &r.OpensAt, &r.ClosesAt, &r.TermStart, &r.TermEnd, &r.Quota, &r.State, &r.CreatedAt}, l.dest()...)...)
	r.OpensAt, r.ClosesAt, r.TermStart, r.TermEnd, r.CreatedAt = r.OpensAt.UTC(), r.ClosesAt.UTC(), r.TermStart.UTC(), r.TermEnd.UTC(), r.CreatedAt.UTC()
	r.Lottery = l.lottery()
	return r, err
}

func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// CreateRound adds a DRAFT round; quota 0 is booking.DefaultRoundQuota.
func (s *Store) CreateRound(ctx context.Context, r booking.Round) (booking.Round, error) {
	if err := r.Validate(); err != nil {
		return booking.Round{}, err
	}
	r = r.WithDefaults()
	out, err := createAudited(s, ctx, booking.EntityRound, scanRound,
		func(r booking.Round) (int64, any) { return r.ID, map[string]any{"state": r.State, "quota": r.Quota} },
		`INSERT INTO rounds (name, opens_at, closes_at, term_start, term_end, quota, state,
			lottery, registration_opens_at, registration_closes_at, selection_minutes, selection_group, selection_window_minutes, seed, seed_commitment)
		VALUES ($1, $2, $3, $4, $5, $6, 'DRAFT', $7, $8, $9, $10, $11, $12, $13, $14) RETURNING `+roundColumns,
		append([]any{r.Name, micro(r.OpensAt), micro(r.ClosesAt), micro(r.TermStart), micro(r.TermEnd), r.Quota}, lotteryArgs(r.Lottery)...)...)
	return out, translate(err, "")
}

// GetRound returns one round.
func (s *Store) GetRound(ctx context.Context, id int64) (booking.Round, error) {
	r, err := scanRound(s.pool.QueryRow(ctx, `SELECT `+roundColumns+` FROM rounds WHERE id = $1`, id))
	return r, translate(err, "round")
}

// SetRoundState changes a round's stored state by booking.RoundTransition,
// under the round's row lock so that two admins' changes apply in turn.
func (s *Store) SetRoundState(ctx context.Context, id int64, state string, now time.Time) (booking.Round, error) {
	var out booking.Round
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		r, err := scanRound(tx.QueryRow(ctx, `SELECT `+roundColumns+` FROM rounds WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return err
		}
		noop, err := booking.RoundTransition(r.State, state)
		if err != nil || noop {
			out = r
			return err
		}
		if out, err = scanRound(tx.QueryRow(ctx, `UPDATE rounds SET state = $2 WHERE id = $1 RETURNING `+roundColumns, id, state)); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditRoundState(ctx, now, booking.RoundStateChange{RoundID: id, From: r.State, To: state}))
	})
	if err != nil {
		return booking.Round{}, translate(err, "round")
	}
	return out, nil
}

// AddRoundSlots adds one slot per room to a DRAFT round, in one
// transaction holding the round's lock (so that it cannot be opened
// meanwhile). A room twice, or a room that already has a slot for the term
// (this round's or another's: its beds are offered once), is a conflict and
// adds nothing.
func (s *Store) AddRoundSlots(ctx context.Context, roundID int64, roomIDs []int64) ([]booking.Slot, error) {
	if err := booking.RoomsTwice(roomIDs); err != nil {
		return nil, err
	}
	var out []booking.Slot
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var state string
		if err := tx.QueryRow(ctx, `SELECT state FROM rounds WHERE id = $1 FOR UPDATE`, roundID).Scan(&state); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return booking.NotFound("round")
			}
			return err
		}
		if err := booking.RoundSlotsRefusal(state); err != nil {
			return err
		}
		if len(roomIDs) == 0 {
			return nil
		}
		rows, _ := tx.Query(ctx, `INSERT INTO slots (resource_id, start_at, end_at, capacity, opens_at, status, fee_cents, round_id)
			SELECT r.id, o.term_start, o.term_end, (r.attributes->>'beds')::integer, o.opens_at, `+booking.SlotOpenSQL+`, 0, o.id
			FROM unnest($2::bigint[]) WITH ORDINALITY AS u(id, n)
			JOIN resources r ON r.id = u.id AND r.kind = 'room'
			CROSS JOIN rounds o WHERE o.id = $1
			ORDER BY u.n
			RETURNING `+slotColumns, roundID, roomIDs)
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Slot, error) { return scanSlot(r) })
		if constraintOf(err) == "slots_resource_start_key" {
			return booking.Errorf(booking.CodeConflict, "a room already has a slot for this term")
		}
		if err != nil {
			return err
		}
		if len(out) != len(roomIDs) {
			return booking.NotFound("room")
		}
		pos := make(map[int64]int, len(roomIDs))
		for i, id := range roomIDs {
			pos[id] = i
		}
		slices.SortFunc(out, func(a, b booking.Slot) int { return pos[a.DoctorID] - pos[b.DoctorID] })
		return writeAudit(ctx, tx, booking.AuditRoundSlots(ctx, time.Now(), roundID, out)...)
	})
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// ListRoundSlots lists the round's slots whose room passes f, by slot id.
func (s *Store) ListRoundSlots(ctx context.Context, roundID int64, f booking.RoomFilter) ([]booking.RoundSlot, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+slotColumnsOf("s")+`, `+roomColumns+`
		FROM slots s JOIN resources r ON r.id = s.resource_id
		WHERE s.round_id = $1 AND `+roomFilterSQL(2)+` ORDER BY s.id`, roundID, f.Building, f.Floor, f.NearDoor)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.RoundSlot, error) {
		var rs booking.RoundSlot
		r := &rs.Room
		err := row.Scan(&rs.ID, &rs.DoctorID, &rs.ScheduleID, &rs.StartAt, &rs.EndAt, &rs.Capacity, &rs.BookedCount,
			&rs.OpensAt, &rs.Status, &rs.FeeCents, &rs.HoldSeconds, &rs.RoundID,
			&r.ID, &r.Name, &r.TimeZone, &r.Building, &r.Floor, &r.NearDoor, &r.Beds, &r.CreatedAt)
		rs.StartAt, rs.EndAt, rs.OpensAt, r.CreatedAt = rs.StartAt.UTC(), rs.EndAt.UTC(), rs.OpensAt.UTC(), r.CreatedAt.UTC()
		return rs, err
	})
	if err != nil {
		return nil, translate(err, "")
	}
	if len(out) == 0 {
		if _, err := s.GetRound(ctx, roundID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// slotColumnsOf is slotColumns for the slots table aliased as alias.
func slotColumnsOf(alias string) string {
	a := alias + "."
	return a + `id, ` + a + `resource_id, COALESCE(` + a + `schedule_id, 0), ` + a + `start_at, ` + a + `end_at, ` +
		a + `capacity, ` + a + `booked_count, ` + a + `opens_at, ` + a + `status, ` + a + `fee_cents, ` +
		a + `hold_seconds, COALESCE(` + a + `round_id, 0)`
}

// --- applications -------------------------------------------------------------

const appColumns = `id, round_id, patient_id, slot_id, status, COALESCE(reason, ''), COALESCE(appointment_id, 0),
	created_at, decided_at, idempotency_key, fingerprint`

func scanApplication(row pgx.Row) (booking.Application, error) {
	var a booking.Application
	err := row.Scan(&a.ID, &a.RoundID, &a.PatientID, &a.SlotID, &a.Status, &a.Reason, &a.AppointmentID,
		&a.CreatedAt, &a.DecidedAt, &a.IdempotencyKey, &a.Fingerprint)
	a.CreatedAt = a.CreatedAt.UTC()
	if a.DecidedAt != nil {
		t := a.DecidedAt.UTC()
		a.DecidedAt = &t
	}
	return a, err
}

// SubmitApplication stores a PENDING application for a slot of the round.
// The same patient and key find the existing application (existed), or
// CodeKeyReused when it was for something else; a concurrent submit of the
// same key waits for the first and then finds it.
func (s *Store) SubmitApplication(ctx context.Context, a booking.Application, now time.Time) (booking.Application, bool, error) {
	if a.Fingerprint == "" {
		a.Fingerprint = booking.ApplicationFingerprint(a.RoundID, a.SlotID)
	}
	var out booking.Application
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var err error
		out, err = scanApplication(tx.QueryRow(ctx, `INSERT INTO round_applications
			(round_id, patient_id, slot_id, idempotency_key, fingerprint, status, created_at)
		SELECT s.round_id, $2, s.id, $4, $5, 'PENDING', $6 FROM slots s WHERE s.id = $3 AND s.round_id = $1
		ON CONFLICT ON CONSTRAINT round_applications_patient_key_key DO NOTHING
		RETURNING `+appColumns, a.RoundID, a.PatientID, a.SlotID, a.IdempotencyKey, a.Fingerprint, micro(now)))
		if err != nil {
			return nil, err
		}
		return []booking.AuditEntry{booking.AuditApplication(ctx, now, out)}, nil
	})
	if err == nil {
		return out, false, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return booking.Application{}, false, translate(err, "")
	}
	out, err = scanApplication(s.pool.QueryRow(ctx, `SELECT `+appColumns+` FROM round_applications
		WHERE patient_id = $1 AND idempotency_key = $2`, a.PatientID, a.IdempotencyKey))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// Nothing inserted and no such key: the slot is not in the round.
		return booking.Application{}, false, booking.NotFound("slot")
	case err != nil:
		return booking.Application{}, false, translate(err, "")
	case out.Fingerprint != a.Fingerprint:
		return booking.Application{}, false, booking.KeyReused(out.SlotID)
	}
	return out, true, nil
}

// GetApplication returns one application.
func (s *Store) GetApplication(ctx context.Context, id int64) (booking.Application, error) {
	a, err := scanApplication(s.pool.QueryRow(ctx, `SELECT `+appColumns+` FROM round_applications WHERE id = $1`, id))
	return a, translate(err, "application")
}

// ListApplications lists q's applications through round_applications_queue_idx.
func (s *Store) ListApplications(ctx context.Context, q booking.ApplicationQuery) ([]booking.Application, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+appColumns+` FROM round_applications
		WHERE round_id = $1 AND status = $2 AND id > $3 ORDER BY id LIMIT $4`, q.RoundID, string(q.Status), q.AfterID, q.Limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Application, error) { return scanApplication(r) })
	return out, translate(err, "")
}

// PendingRounds lists the rounds with PENDING applications, by id.
func (s *Store) PendingRounds(ctx context.Context) ([]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT r.id FROM rounds r WHERE EXISTS (
		SELECT 1 FROM round_applications a WHERE a.round_id = r.id AND a.status = 'PENDING') ORDER BY r.id`)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, translate(err, "")
}

const (
	sqlLockRound   = `SELECT ` + roundColumns + ` FROM rounds WHERE id = $1 FOR UPDATE`
	sqlPendingApps = `SELECT ` + appColumns + ` FROM round_applications
		WHERE round_id = $1 AND status = 'PENDING' ORDER BY id LIMIT $2`
	// sqlLockAppSlots takes the slots' locks up front, in id order (the
	// order of every multi-slot locker), before any quota row: a booking
	// holds its slot and then waits for quota rows, so a decision that
	// locked slots one after another while holding quota rows could
	// deadlock with it.
	sqlLockAppSlots = `SELECT id FROM slots WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`
	// sqlLockQuotas takes the patients' quota rows, creating them at 0, in
	// ascending patient order, so that the decision's quota reads are
	// exact for the whole transaction.
	sqlLockQuotas = `INSERT INTO round_quotas (round_id, patient_id, used, quota)
		SELECT $1::bigint, d.p, 0, r.quota FROM (SELECT DISTINCT p FROM unnest($2::bigint[]) AS p) d, rounds r
		WHERE r.id = $1 ORDER BY d.p
		ON CONFLICT (round_id, patient_id) DO UPDATE SET used = round_quotas.used`
	sqlDecideApps = `UPDATE round_applications a SET status = v.status, reason = NULLIF(v.reason, ''),
			appointment_id = NULLIF(v.appt, 0), decided_at = $5
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) AS v(id, status, reason, appt)
		WHERE a.id = v.id AND a.status = 'PENDING'`
)

// DecidePending decides up to limit of the round's oldest PENDING
// applications in one transaction: it locks the round's row (so that
// concurrent calls decide one round's applications one after the other, in
// arrival order), the slots concerned and the patients' quota rows, then
// runs Book's decision for each run of consecutive applications for one
// slot, writes the outcomes and commits. The allocation books with the
// application's key, so a synchronous retry with that key replays it.
func (s *Store) DecidePending(ctx context.Context, roundID int64, limit int, now time.Time) ([]booking.Application, error) {
	if limit <= 0 {
		return nil, nil
	}
	now = micro(now)
	for attempt := 1; ; attempt++ {
		out, err := s.decidePending(ctx, roundID, limit, now)
		// A race with a booking on another slot (the same key, say) or a
		// deadlock: the transaction is gone; decide again from the start,
		// and the reads now see what the other committed.
		if err != nil && retryAlone(err) && attempt < 5 {
			continue
		}
		if err != nil {
			return nil, translate(err, "round")
		}
		return out, nil
	}
}

func (s *Store) decidePending(ctx context.Context, roundID int64, limit int, now time.Time) ([]booking.Application, error) {
	var out []booking.Application
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(sqlLockRound, roundID)
		b.Queue(sqlPendingApps, roundID, limit)
		br := tx.SendBatch(ctx, b)
		round, err := scanRound(br.QueryRow())
		if err == nil {
			rows, _ := br.Query()
			out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Application, error) { return scanApplication(r) })
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil || len(out) == 0 {
			return err
		}

		slotIDs := make([]int64, 0, len(out))
		patients := make([]int64, 0, len(out))
		for _, a := range out {
			slotIDs, patients = append(slotIDs, a.SlotID), append(patients, a.PatientID)
		}
		b = &pgx.Batch{}
		b.Queue(sqlLockAppSlots, slotIDs)
		b.Queue(sqlLockQuotas, roundID, patients)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}

		err = booking.DecideApplications(round, out, now, func(slotID int64, reqs []booking.BookRequest, at time.Time) ([]booking.BookResult, error) {
			return s.decideInTx(ctx, tx, slotID, reqs, at)
		})
		if err != nil {
			return err
		}

		ids := make([]int64, len(out))
		statuses := make([]string, len(out))
		reasons := make([]string, len(out))
		appts := make([]int64, len(out))
		for k, a := range out {
			ids[k], statuses[k], reasons[k], appts[k] = a.ID, string(a.Status), string(a.Reason), a.AppointmentID
		}
		tag, err := tx.Exec(ctx, sqlDecideApps, ids, statuses, reasons, appts, now)
		if err != nil {
			return err
		}
		if int(tag.RowsAffected()) != len(out) {
			// The round's lock makes us the only decider: a bug.
			return fmt.Errorf("postgres: round %d: decided %d applications but recorded %d", roundID, len(out), tag.RowsAffected())
		}
		return nil
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, booking.NotFound("round")
	}
	return out, err
}

// RoundResults lists who holds which room: the active appointments of the
// round's slots, by room name then bed.
func (s *Store) RoundResults(ctx context.Context, roundID int64) ([]booking.Allocation, error) {
	rows, _ := s.pool.Query(ctx, `SELECT s.round_id, a.id, s.id, a.patient_id, p.name_sealed, r.id, r.name,
			COALESCE(r.attributes->>'building', ''), COALESCE((r.attributes->>'floor')::integer, 0),
			COALESCE((r.attributes->>'nearDoor')::boolean, false), a.status, a.queue_no, a.created_at
		FROM slots s
		JOIN appointments a ON a.slot_id = s.id AND a.status IN `+booking.ActiveSQL+`
		JOIN patients p ON p.id = a.patient_id
		JOIN resources r ON r.id = s.resource_id
		WHERE s.round_id = $1 ORDER BY r.name, a.queue_no, a.id`, roundID)
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (booking.Allocation, error) {
		var al booking.Allocation
		var name []byte
		err := row.Scan(&al.RoundID, &al.AppointmentID, &al.SlotID, &al.PatientID, &name, &al.RoomID, &al.RoomName,
			&al.Building, &al.Floor, &al.NearDoor, &al.Status, &al.Bed, &al.AllocatedAt)
		al.AllocatedAt = al.AllocatedAt.UTC()
		if err == nil {
			al.PatientName, err = s.keys.Open(pii.FieldName, name)
		}
		return al, err
	})
	if err != nil {
		return nil, translate(err, "")
	}
	if len(out) == 0 {
		if _, err := s.GetRound(ctx, roundID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sqlRoundQuotaMismatches compares each quota row with the patient's active
// appointments in the round, both ways (a row missing counts as 0).
const sqlRoundQuotaMismatches = `SELECT COALESCE(q.round_id, c.round_id), COALESCE(q.patient_id, c.patient_id),
		COALESCE(q.used, 0), COALESCE(c.n, 0)
	FROM round_quotas q FULL JOIN (
		SELECT round_id, patient_id, count(*)::integer AS n FROM appointments
		WHERE round_id IS NOT NULL AND status IN ` + booking.ActiveSQL + ` GROUP BY round_id, patient_id) c
		ON c.round_id = q.round_id AND c.patient_id = q.patient_id
	WHERE COALESCE(q.used, 0) <> COALESCE(c.n, 0)
	ORDER BY 1, 2`
