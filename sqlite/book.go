package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// slotState is what Book reads about a slot before deciding: the row, the
// highest queue number in use, and which of the batch's patients already
// hold a place in it. It never holds the slot's whole list of active
// appointments: on a slot of 10,000 places reading them dominated the cost
// of every batch.
type slotState struct {
	slot booking.Slot
	// top is the highest queue number of the slot's active appointments
	// (0 when none).
	top int
	// active: the batch's patients (only those) holding a place here;
	// filled by checkPatients.
	active map[int64]bool
	// reclaimed says holds were expired in this transaction: numbers below
	// top are free, so the next numbers are searched for, not counted on.
	reclaimed bool
	// round is the slot's round (nil for an ordinary slot), read with the
	// slot: its clock refuses or admits the batch, its quota each patient.
	round *booking.Round
}

// Book's fixed statements, named so that stmtCache can prepare them once.
var (
	// slotStateSQL reads the slot with its top queue number: max() over
	// the partial index appointments_slot_queue_active (slot_id, queue_no)
	// is one step down the index, O(log n), however many places are taken.
	// (coalesce stays outside: a bare max() is what the optimization needs.)
	// The slot's round, if any, comes with it through a LEFT JOIN on the
	// rounds' primary key: an ordinary slot pays no extra statement.
	slotStateSQL = `SELECT s.id, s.resource_id, s.schedule_id, s.start_at, s.end_at, s.capacity, s.booked_count,
		s.opens_at, s.status, s.fee_cents, s.hold_seconds, s.round_id,
		coalesce((SELECT max(queue_no) FROM appointments
		           WHERE slot_id = s.id AND status IN ('HELD', 'BOOKED')), 0),
		r.opens_at, r.closes_at, r.quota, r.state
		FROM slots s LEFT JOIN rounds r ON r.id = s.round_id WHERE s.id = ?`
	// takenQueueSQL walks the slot's queue numbers in use in order, through
	// appointments_slot_queue_active; read only when numbers below the top
	// may be free, and only until enough free ones are found.
	takenQueueSQL = `SELECT queue_no FROM appointments
		  WHERE slot_id = ? AND status IN ('HELD', 'BOOKED') ORDER BY queue_no`
	keyLookupSQL = `SELECT ` + apptCols + apptFrom + `
		WHERE a.patient_id IN (SELECT value FROM json_each(?))
		  AND a.idempotency_key IN (SELECT value FROM json_each(?))`
	// checkPatientsSQL answers, per distinct patient of the batch: missing,
	// already holding a place in this slot (appointments_slot_patient_active),
	// holding an overlapping place elsewhere (appointments_patient_idx), and
	// the allocations counted in the slot's round ?5 (round_quotas' primary
	// key; nothing to find for an ordinary slot, whose ?5 is NULL). Round
	// allocations take no part in the overlap rule, on either side: the
	// round's quota governs them (as appointments_no_overlap's WHERE).
	checkPatientsSQL = `SELECT p.value,
		        NOT EXISTS (SELECT 1 FROM patients WHERE id = p.value),
		        EXISTS (SELECT 1 FROM appointments h
		                 WHERE h.slot_id = ?2 AND h.patient_id = p.value AND h.status IN ('HELD', 'BOOKED')),
		        ?5 IS NULL AND EXISTS (SELECT 1 FROM appointments o
		                 WHERE o.patient_id = p.value AND o.status IN ('HELD', 'BOOKED') AND o.round_id IS NULL
		                   AND o.slot_id <> ?2 AND o.start_at < ?3 AND o.end_at > ?4),
		        coalesce((SELECT used FROM round_quotas WHERE round_id = ?5 AND patient_id = p.value), 0)
		   FROM (SELECT DISTINCT value FROM json_each(?1)) p`
	// takeQuotaSQL counts the new allocations in the round (one per
	// patient: a batch is one slot), patients in ascending id order. It is
	// the batch's last statement, and round_quotas_within_quota its last
	// line of defence. (WHERE true: SQLite's upsert after a SELECT needs it
	// to parse.)
	takeQuotaSQL = `INSERT INTO round_quotas (round_id, patient_id, used, quota)
		SELECT ?1, value, 1, ?2 FROM json_each(?3) WHERE true ORDER BY value
		ON CONFLICT (round_id, patient_id) DO UPDATE SET used = round_quotas.used + excluded.used`
	takePlacesSQL = `UPDATE slots SET booked_count = booked_count + ?1
		  WHERE id = ?2 AND status = 'OPEN' AND opens_at <= ?3 AND start_at > ?3
		    AND booked_count + ?1 <= capacity`
	insertOneSQL = insertSQL(1)
)

// bookSQL lists them for the cache.
var bookSQL = []string{slotStateSQL, takenQueueSQL, keyLookupSQL, checkPatientsSQL, takePlacesSQL, insertOneSQL,
	reclaimSQL, takeQuotaSQL}

func readState(ctx context.Context, q querier, slotID int64) (*slotState, error) {
	st := &slotState{active: map[int64]bool{}}
	sl := &st.slot
	var sched, round sql.NullInt64
	var start, end, opens int64
	var rOpens, rCloses, rQuota sql.NullInt64
	var rState sql.NullString
	err := q.QueryRowContext(ctx, slotStateSQL, slotID).Scan(&sl.ID, &sl.DoctorID, &sched, &start, &end,
		&sl.Capacity, &sl.BookedCount, &opens, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &round, &st.top,
		&rOpens, &rCloses, &rQuota, &rState)
	if err != nil {
		return nil, err
	}
	sl.ScheduleID, sl.RoundID = sched.Int64, round.Int64
	sl.StartAt, sl.EndAt, sl.OpensAt = fromTS(start), fromTS(end), fromTS(opens)
	if round.Valid && rState.Valid {
		st.round = &booking.Round{ID: round.Int64, OpensAt: fromTS(rOpens.Int64), ClosesAt: fromTS(rCloses.Int64),
			Quota: int(rQuota.Int64), State: rState.String}
	}
	return st, nil
}

// freeNumbers returns up to n of the lowest queue numbers in 1..capacity
// not in use. When the top number equals the counter, the numbers in use
// are exactly 1..top (they are distinct, within 1..capacity, and as many as
// the counter), so the free ones follow the top: no read at all. Otherwise
// (after cancels or expiries left gaps, or a reclaim in this transaction)
// the numbers in use are walked in order until n gaps are found.
func (st *slotState) freeNumbers(ctx context.Context, q querier, n int) ([]int, error) {
	free := make([]int, 0, n)
	if !st.reclaimed && st.top == st.slot.BookedCount {
		for k := st.top + 1; k <= st.slot.Capacity && len(free) < n; k++ {
			free = append(free, k)
		}
		return free, nil
	}
	if n <= 0 {
		return free, nil
	}
	rows, err := q.QueryContext(ctx, takenQueueSQL, st.slot.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	next := 1 // the lowest number not yet known to be taken
	for len(free) < n && rows.Next() {
		var used int
		if err := rows.Scan(&used); err != nil {
			return nil, err
		}
		for ; next < used && len(free) < n; next++ {
			free = append(free, next)
		}
		next = max(next, used+1)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for ; next <= st.slot.Capacity && len(free) < n; next++ {
		free = append(free, next)
	}
	return free, nil
}

type pairKey struct {
	patient int64
	key     string
}

// violation is a constraint violation that aborted a batch: the batch is
// rolled back and its requests decided one by one.
type violation struct {
	name string
	err  error
}

func (v *violation) Error() string { return "constraint " + v.name + ": " + v.err.Error() }
func (v *violation) Unwrap() error { return v.err }

// Book decides reqs, all for slotID, in one write transaction and answers
// them in order (docs/contracts/store.md, "Book"). The transaction is
// BEGIN IMMEDIATE on the single writer connection: it holds SQLite's write
// lock from its first statement, so what it reads (the slot, the queue
// numbers, the patients' other appointments) cannot change before it
// commits. That is also why overlap needs no exclusion constraint here: it
// is checked inside this serialized transaction (the triggers in the schema
// only back it up).
//
// A constraint violation can only come from a bug or the racy test mode;
// it rolls the whole batch back and each request is decided alone, answered
// by the constraint that fired.
func (s *Store) Book(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	if len(reqs) == 0 {
		return []booking.BookResult{}, nil
	}
	out, err := s.bookBatch(ctx, slotID, reqs, now)
	var v *violation
	if !errors.As(err, &v) {
		if err != nil {
			return nil, mapErr(err, "")
		}
		return out, nil
	}

	out = make([]booking.BookResult, len(reqs))
	first := map[pairKey]int{}
	for i, r := range reqs {
		pk := pairKey{r.PatientID, r.IdempotencyKey}
		if j, dup := first[pk]; dup {
			out[i] = sameKeyOutcome(out[j], reqs[j], r)
			continue
		}
		first[pk] = i
		res, err := s.bookAlone(ctx, slotID, r, now)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out[i] = res
	}
	return out, nil
}

// bookAlone decides one request in its own transaction; a violation is
// answered by the constraint's name.
func (s *Store) bookAlone(ctx context.Context, slotID int64, r booking.BookRequest, now time.Time) (booking.BookResult, error) {
	res, err := s.bookBatch(ctx, slotID, []booking.BookRequest{r}, now)
	var v *violation
	if !errors.As(err, &v) {
		if err != nil {
			return booking.BookResult{}, err
		}
		return res[0], nil
	}
	// The key was taken by a transaction that committed meanwhile: look it
	// up now that ours is rolled back.
	return answerViolation(ctx, s.writer, v, slotID, r)
}

// answerViolation answers a request decided alone that a constraint
// refused: by the constraint's name, or, when its Idempotency-Key turned
// out to be taken, by the appointment that has it (q reads after the
// rollback).
func answerViolation(ctx context.Context, q querier, v *violation, slotID int64, r booking.BookRequest) (booking.BookResult, error) {
	if v.name != conPatientKey {
		return booking.BookResult{Err: bookingErr(v.name, slotID, v.err)}, nil
	}
	a, err := scanAppt(q.QueryRowContext(ctx,
		`SELECT `+apptCols+apptFrom+`WHERE a.patient_id = ? AND a.idempotency_key = ?`, r.PatientID, r.IdempotencyKey))
	if err != nil {
		return booking.BookResult{}, fmt.Errorf("sqlite: look up idempotency key after violation: %w", err)
	}
	return replay(a, r, slotID), nil
}

// replay answers a request whose key already has an appointment.
func replay(a booking.Appointment, r booking.BookRequest, slotID int64) booking.BookResult {
	if a.Fingerprint != r.Fingerprint {
		return booking.BookResult{Err: bookingErr(conPatientKey, slotID, nil)}
	}
	return booking.BookResult{Appointment: a, Replayed: true}
}

// sameKeyOutcome answers the later of two requests of one batch with the
// same patient and key: the earlier one's outcome.
func sameKeyOutcome(earlier booking.BookResult, er, r booking.BookRequest) booking.BookResult {
	if earlier.Err != nil {
		return booking.BookResult{Err: earlier.Err}
	}
	if er.Fingerprint != r.Fingerprint {
		return booking.BookResult{Err: bookingErr(conPatientKey, earlier.Appointment.SlotID, nil)}
	}
	return booking.BookResult{Appointment: earlier.Appointment, Replayed: true}
}

// bookBatch runs steps 1–9 of the contract in one write transaction. It
// returns a *violation (after rolling back) when a constraint fired.
func (s *Store) bookBatch(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	now = micro(now)
	var pre *slotState
	if s.racy {
		// The deliberate bug: read outside the write transaction.
		var err error
		if pre, err = s.readStateSeparately(ctx, slotID); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}

	var out []booking.BookResult
	s.stmts.prepare(ctx, s.writer)
	err := s.write(ctx, func(tx *sql.Tx) error {
		var ns []booking.Notification
		var err error
		if out, ns, err = s.decideInTx(ctx, tx, slotID, reqs, now, pre); err != nil {
			return err
		}
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return nil, asViolation(err)
	}
	return out, nil
}

// asViolation marks a constraint violation of the decision as a
// *violation, so that the caller decides the batch's requests alone. An
// enqueuer's failure stays what it is, whatever its cause.
func asViolation(err error) error {
	var ee *enqueueError
	if errors.As(err, &ee) {
		return err
	}
	if name := constraintName(err); name != "" {
		return &violation{name: name, err: err}
	}
	return err
}

// decideInTx decides reqs, all for slotID, inside tx (steps 1–8 of the
// contract: the reads, the classification, the conditional update, the
// inserts and, for a round's slot, the quota) and returns the answers and
// the notifications the change announces, for the caller to enqueue and
// commit. Book runs it as a transaction of its own; DecidePending runs
// many in one transaction. Errors come back unmapped; after a constraint
// violation the caller must roll back what the batch wrote (the whole
// transaction, or its savepoint), because SQLite undoes only the failed
// statement. pre, when set, replaces the state read in tx (the racy mode).
func (s *Store) decideInTx(ctx context.Context, tx *sql.Tx, slotID int64, reqs []booking.BookRequest, now time.Time,
	pre *slotState) ([]booking.BookResult, []booking.Notification, error) {
	out := make([]booking.BookResult, len(reqs))
	q := s.stmts.in(tx)
	// 1. The slot, read under the write lock.
	st, err := readState(ctx, q, slotID)
	if errors.Is(err, sql.ErrNoRows) {
		for i := range out {
			out[i] = booking.BookResult{Err: booking.NotFound("slot")}
		}
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if pre != nil {
		st = pre
	}

	// 2. Idempotency: every (patient, key) of the batch in one query.
	existing, err := keyLookup(ctx, q, reqs)
	if err != nil {
		return nil, nil, err
	}
	// 3. Whether the slot takes bookings at all, fullness aside. A round's
	// clock and state come first, as on PostgreSQL: a DRAFT or closed round
	// refuses although its slots' own window is open.
	var closedErr error
	if st.round != nil {
		if e := st.round.Refusal(now, slotID); e != nil {
			closedErr = e
		}
	}
	if closedErr == nil {
		open := st.slot
		open.BookedCount = 0 // fullness is decided by the counter below
		closedErr = open.Bookable(now)
	}

	first := map[pairKey]int{}
	dupOf := make([]int, len(reqs))
	var pending []int // requests left to decide on the slot's rows
	for i, r := range reqs {
		dupOf[i] = -1
		pk := pairKey{r.PatientID, r.IdempotencyKey}
		if j, dup := first[pk]; dup {
			dupOf[i] = j
			continue
		}
		first[pk] = i
		if a, ok := existing[pk]; ok {
			out[i] = replay(a, r, slotID)
			continue
		}
		if closedErr != nil {
			out[i] = booking.BookResult{Err: closedErr}
			continue
		}
		pending = append(pending, i)
	}

	// The patients: do they exist, do they hold a place here (4), do they
	// hold an active appointment in another slot overlapping this one (5),
	// and how much of the round's quota have they used? One query.
	checks, err := checkPatients(ctx, q, st, reqs, pending)
	if err != nil {
		return nil, nil, err
	}
	for p, c := range checks {
		if c.activeHere {
			st.active[p] = true
		}
	}

	// 4, 6–7: the first places go to the eligible requests in arrival
	// order, one per patient. A request that finds no place while the
	// slot has holds past their deadline makes the batch reclaim them
	// (SPEC §6) and decide again: expiring them first is what the
	// expiry job would have done, so the answers are those of a slot
	// whose expired holds had already been released.
	placed, free, short, err := decidePlaces(ctx, q, st, reqs, pending, checks, out)
	if err != nil {
		return nil, nil, err
	}
	var reclaimed []int64
	if short {
		var freed []int64
		if reclaimed, freed, err = reclaim(ctx, tx, q, st, now); err != nil {
			return nil, nil, err
		}
		if len(reclaimed) > 0 {
			if st.round != nil {
				// The quota trigger gave the reclaimed holds' quota back.
				for _, p := range freed {
					if c, ok := checks[p]; ok {
						c.used--
						checks[p] = c
					}
				}
			}
			if placed, free, _, err = decidePlaces(ctx, q, st, reqs, pending, checks, out); err != nil {
				return nil, nil, err
			}
		}
	}
	if g := len(placed); g > 0 {
		if err := takePlaces(ctx, q, st.slot, g, pre != nil, now); err != nil {
			return nil, nil, err
		}
		if err := insertAppointments(ctx, q, st.slot, reqs, placed, free, now, out); err != nil {
			return nil, nil, err
		}
		if st.round != nil {
			if err := takeQuota(ctx, q, st.round, reqs, placed); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(reclaimed) > 0 {
		// A replay read before the reclaim may name a hold it expired:
		// answer it as it is now.
		gone := map[int64]bool{}
		for _, id := range reclaimed {
			gone[id] = true
		}
		for i := range out {
			if a := &out[i].Appointment; out[i].Replayed && gone[a.ID] {
				a.Status, a.UpdatedAt = booking.StatusExpired, now
			}
		}
	}

	for i, j := range dupOf {
		if j >= 0 {
			out[i] = sameKeyOutcome(out[j], reqs[j], reqs[i])
		}
	}

	// Announce what this decision made true: the new BOOKED appointments
	// (a HELD one is announced when it is paid) and the holds reclaimed.
	var ns []booking.Notification
	for _, id := range reclaimed {
		ns = append(ns, booking.Notification{Kind: booking.NotifyExpiry, AppointmentID: id})
	}
	for _, i := range placed {
		if a := out[i].Appointment; a.Status == booking.StatusBooked {
			ns = append(ns, booking.Notification{Kind: booking.NotifyConfirmation, AppointmentID: a.ID})
		}
	}
	return out, ns, nil
}

// takeQuota counts the placed requests' allocations in round, in one
// statement. A patient gets one place per batch, so each counts 1.
func takeQuota(ctx context.Context, q execer, round *booking.Round, reqs []booking.BookRequest, placed []int) error {
	patients := make([]int64, len(placed))
	for k, i := range placed {
		patients[k] = reqs[i].PatientID
	}
	pj, _ := json.Marshal(patients)
	_, err := q.ExecContext(ctx, takeQuotaSQL, round.ID, round.Quota, string(pj))
	return err
}

// decidePlaces answers the pending requests from st and checks (steps 4–7
// without the writes): the ones that get a place are returned in arrival
// order with the queue numbers they get, and short says an eligible
// request found no place. It overwrites the answers of every pending
// request, so it can run again after a reclaim.
func decidePlaces(ctx context.Context, q querier, st *slotState, reqs []booking.BookRequest, pending []int,
	checks map[int64]patientCheck, out []booking.BookResult) (placed, free []int, short bool, err error) {
	slotID := st.slot.ID
	// No more numbers than requests: capacity may be large. Fewer numbers
	// than the counter promises (a corrupt counter) give fewer places.
	if free, err = st.freeNumbers(ctx, q, min(st.slot.Capacity-st.slot.BookedCount, len(pending))); err != nil {
		return nil, nil, false, err
	}
	got := map[int64]bool{}
	for _, i := range pending {
		p := reqs[i].PatientID
		out[i] = booking.BookResult{}
		switch c := checks[p]; {
		case c.missing:
			// Answered here rather than left to the foreign key, which
			// would fail the whole batch and would not say which reference.
			out[i].Err = booking.NotFound("patient")
		case st.active[p]: // 4.
			out[i].Err = bookingErr(conSlotPatientActive, slotID, nil)
		case c.overlapping: // 5.
			out[i].Err = bookingErr(conNoOverlap, slotID, nil)
		case st.round != nil && c.used >= st.round.Quota:
			// A batch is one slot and a patient gets one place in it, so
			// the count read is all the batch can add to.
			out[i].Err = booking.QuotaError(slotID, st.round.Quota)
		case got[p]:
			out[i].Err = bookingErr(conSlotPatientActive, slotID, nil)
		case len(placed) < len(free):
			got[p] = true
			placed = append(placed, i)
		default:
			out[i].Err = bookingErr(conSlotCapacity, slotID, nil)
			short = true
		}
	}
	return placed, free, short, nil
}

// reclaimSQL expires the slot's holds past their deadline: the transition
// HELD → EXPIRED as a conditional update from the table's sources. The
// first status term repeats the partial index's WHERE so that SQLite walks
// appointments_slot_held_idx (only this slot's stale holds): a full slot's
// every batch tries it, so it must not cost a scan of the slot's places.
var reclaimSQL = `UPDATE appointments SET status = 'EXPIRED', updated_at = ?1
	WHERE slot_id = ?2 AND status = 'HELD' AND hold_expires_at <= ?1
	  AND status IN ` + statusList(booking.Sources(booking.StatusExpired)) + `
	RETURNING id, patient_id`

// reclaim expires st's slot's holds past their deadline, releases their
// places in the counter and in st, and returns their ids and patients.
func reclaim(ctx context.Context, tx *sql.Tx, q querier, st *slotState, now time.Time) (ids, patients []int64, err error) {
	rows, err := q.QueryContext(ctx, reclaimSQL, ts(now), st.slot.ID)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id, p int64
		if err := rows.Scan(&id, &p); err != nil {
			rows.Close()
			return nil, nil, err
		}
		ids = append(ids, id)
		patients = append(patients, p)
		delete(st.active, p)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, nil, err
	}
	if n := len(ids); n > 0 {
		if err := releasePlaces(ctx, tx, map[int64]int{st.slot.ID: n}); err != nil {
			return nil, nil, err
		}
		st.slot.BookedCount -= n
		st.reclaimed = true
	}
	return ids, patients, nil
}

// readStateSeparately is the racy mode's read: its own read transaction on
// the reader pool, finished before the write transaction begins.
func (s *Store) readStateSeparately(ctx context.Context, slotID int64) (*slotState, error) {
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return readState(ctx, tx, slotID)
}

// keyLookup finds the appointments already made with the batch's
// (patient, key) pairs. It filters patients and keys separately (both use
// the unique index) and keeps only the exact pairs.
func keyLookup(ctx context.Context, q querier, reqs []booking.BookRequest) (map[pairKey]booking.Appointment, error) {
	want := map[pairKey]bool{}
	var patients []int64
	var keys []string
	for _, r := range reqs {
		want[pairKey{r.PatientID, r.IdempotencyKey}] = true
		patients = append(patients, r.PatientID)
		keys = append(keys, r.IdempotencyKey)
	}
	pj, _ := json.Marshal(patients)
	kj, _ := json.Marshal(keys)
	rows, err := q.QueryContext(ctx, keyLookupSQL, string(pj), string(kj))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[pairKey]booking.Appointment{}
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			return nil, err
		}
		if pk := (pairKey{a.PatientID, a.IdempotencyKey}); want[pk] {
			found[pk] = a
		}
	}
	return found, rows.Err()
}

// patientCheck is what Book needs to know about a requesting patient
// beyond this slot.
type patientCheck struct {
	missing     bool // no such patient
	activeHere  bool // holds an active appointment in this slot
	overlapping bool // holds an active appointment in another slot overlapping this one
	used        int  // allocations counted in the slot's round
}

// checkPatients looks up the pending requests' patients in one query:
// whether each exists (patients' primary key), holds a place in st's slot,
// holds an active appointment in another slot overlapping it
// (appointments_patient_idx; never for a round's slot), and, for a round's
// slot, how many allocations round_quotas counts for it.
func checkPatients(ctx context.Context, q querier, st *slotState, reqs []booking.BookRequest, pending []int) (map[int64]patientCheck, error) {
	found := map[int64]patientCheck{}
	if len(pending) == 0 {
		return found, nil
	}
	patients := make([]int64, len(pending))
	for k, i := range pending {
		patients[k] = reqs[i].PatientID
	}
	pj, _ := json.Marshal(patients)
	sl := st.slot
	var round any
	if st.round != nil {
		round = st.round.ID
	}
	rows, err := q.QueryContext(ctx, checkPatientsSQL, string(pj), sl.ID, ts(sl.EndAt), ts(sl.StartAt), round)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		var c patientCheck
		if err := rows.Scan(&p, &c.missing, &c.activeHere, &c.overlapping, &c.used); err != nil {
			return nil, err
		}
		found[p] = c
	}
	return found, rows.Err()
}

// takePlaces is the decision: the conditional update of the counter that
// must affect the slot's row. The racy mode instead writes back the count it
// read earlier plus g, absolutely.
func takePlaces(ctx context.Context, q execer, sl booking.Slot, g int, racy bool, now time.Time) error {
	var res sql.Result
	var err error
	if racy {
		res, err = q.ExecContext(ctx, `UPDATE slots SET booked_count = ? WHERE id = ?`, sl.BookedCount+g, sl.ID)
	} else {
		res, err = q.ExecContext(ctx, takePlacesSQL, g, sl.ID, ts(now))
	}
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("sqlite: conditional update of slot %d affected %d rows under the write lock", sl.ID, n)
	}
	return nil
}

// insertSQL is the INSERT ... RETURNING of n appointments.
func insertSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at, round_id) VALUES `)
	for k := range n {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	}
	b.WriteString(" RETURNING id, patient_id")
	return b.String()
}

// insertRows bounds one multi-row INSERT (12 parameters a row) well under
// SQLite's limit on bound parameters.
const insertRows = 500

// insertAppointments inserts the placed requests' appointments with
// multi-row INSERT ... RETURNING and fills their results. RETURNING's row
// order is unspecified in SQLite, so ids are matched by patient (one place
// per patient per batch).
func insertAppointments(ctx context.Context, q querier, sl booking.Slot, reqs []booking.BookRequest,
	placed []int, free []int, now time.Time, out []booking.BookResult) error {
	status := booking.StatusBooked
	var hold *time.Time
	if sl.FeeCents > 0 {
		status = booking.StatusHeld
		h := micro(now.Add(time.Duration(sl.HoldSeconds) * time.Second))
		hold = &h
	}
	for start := 0; start < len(placed); start += insertRows {
		part := placed[start:min(start+insertRows, len(placed))]
		args := make([]any, 0, len(part)*12)
		byPatient := map[int64]int{}
		for k, i := range part {
			r := reqs[i]
			args = append(args, sl.ID, r.PatientID, string(status), free[start+k], ts(sl.StartAt), ts(sl.EndAt),
				r.IdempotencyKey, r.Fingerprint, nullTS(hold), ts(now), ts(now), nullID(sl.RoundID))
			byPatient[r.PatientID] = i
			out[i] = booking.BookResult{Appointment: booking.Appointment{
				SlotID: sl.ID, DoctorID: sl.DoctorID, PatientID: r.PatientID, Status: status,
				QueueNumber: free[start+k], StartAt: sl.StartAt, EndAt: sl.EndAt, HoldExpiresAt: hold,
				CreatedAt: now, UpdatedAt: now, IdempotencyKey: r.IdempotencyKey, Fingerprint: r.Fingerprint,
				RoundID: sl.RoundID,
			}}
		}
		rows, err := q.QueryContext(ctx, insertSQL(len(part)), args...)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var id, p int64
			if err := rows.Scan(&id, &p); err != nil {
				rows.Close()
				return err
			}
			out[byPatient[p]].Appointment.ID = id
			n++
		}
		// A constraint violation of an INSERT ... RETURNING surfaces here.
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if n != len(part) {
			return fmt.Errorf("sqlite: inserted %d appointments, want %d", n, len(part))
		}
	}
	return nil
}
