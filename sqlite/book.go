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

// slotState is what Book reads about a slot before deciding: the row and its
// active (HELD/BOOKED) appointments' patients and queue numbers.
type slotState struct {
	slot   booking.Slot
	active map[int64]bool // patient id → holds a place in this slot
	taken  map[int]bool   // queue numbers in use
}

// Book's fixed statements, named so that stmtCache can prepare them once.
var (
	slotByIDSQL = `SELECT ` + slotCols + ` FROM slots WHERE id = ?`
	// The IN list is written out so that SQLite uses the partial index
	// appointments_slot_queue_active; at most capacity rows.
	activeRowsSQL = `SELECT patient_id, queue_no FROM appointments
		  WHERE slot_id = ? AND status IN ('HELD', 'BOOKED')`
	keyLookupSQL = `SELECT ` + apptCols + apptFrom + `
		WHERE a.patient_id IN (SELECT value FROM json_each(?))
		  AND a.idempotency_key IN (SELECT value FROM json_each(?))`
	checkPatientsSQL = `SELECT p.value,
		        NOT EXISTS (SELECT 1 FROM patients WHERE id = p.value),
		        EXISTS (SELECT 1 FROM appointments o
		                 WHERE o.patient_id = p.value AND o.status IN ('HELD', 'BOOKED')
		                   AND o.slot_id <> ?2 AND o.start_at < ?3 AND o.end_at > ?4)
		   FROM (SELECT DISTINCT value FROM json_each(?1)) p`
	takePlacesSQL = `UPDATE slots SET booked_count = booked_count + ?1
		  WHERE id = ?2 AND status = 'OPEN' AND opens_at <= ?3 AND start_at > ?3
		    AND booked_count + ?1 <= capacity`
	insertOneSQL = insertSQL(1)
)

// bookSQL lists them for the cache.
var bookSQL = []string{slotByIDSQL, activeRowsSQL, keyLookupSQL, checkPatientsSQL, takePlacesSQL, insertOneSQL}

func readState(ctx context.Context, q querier, slotID int64) (*slotState, error) {
	sl, err := scanSlot(q.QueryRowContext(ctx, slotByIDSQL, slotID))
	if err != nil {
		return nil, err
	}
	st := &slotState{slot: sl, active: map[int64]bool{}, taken: map[int]bool{}}
	rows, err := q.QueryContext(ctx, activeRowsSQL, slotID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		var n int
		if err := rows.Scan(&p, &n); err != nil {
			return nil, err
		}
		st.active[p] = true
		st.taken[n] = true
	}
	return st, rows.Err()
}

// freeNumbers returns up to n of the lowest queue numbers in 1..capacity
// not in use.
func (st *slotState) freeNumbers(n int) []int {
	var free []int
	for q := 1; q <= st.slot.Capacity && len(free) < n; q++ {
		if !st.taken[q] {
			free = append(free, q)
		}
	}
	return free
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
// them in order (notes/store-contract.md, "Book"). The transaction is
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
	if v.name != conPatientKey {
		return booking.BookResult{Err: bookingErr(v.name, slotID, v.err)}, nil
	}
	// The key was taken by a transaction that committed meanwhile: look it
	// up now that ours is rolled back.
	a, err := scanAppt(s.writer.QueryRowContext(ctx,
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

	out := make([]booking.BookResult, len(reqs))
	s.stmts.prepare(ctx, s.writer)
	err := s.write(ctx, func(tx *sql.Tx) error {
		q := s.stmts.in(tx)
		// 1. The slot, read under the write lock.
		st, err := readState(ctx, q, slotID)
		if errors.Is(err, sql.ErrNoRows) {
			for i := range out {
				out[i] = booking.BookResult{Err: booking.NotFound("slot")}
			}
			return nil
		}
		if err != nil {
			return err
		}
		if pre != nil {
			st = pre
		}

		// 2. Idempotency: every (patient, key) of the batch in one query.
		existing, err := keyLookup(ctx, q, reqs)
		if err != nil {
			return err
		}
		open := st.slot
		open.BookedCount = 0 // fullness is decided by the counter below
		closedErr := open.Bookable(now)

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
			if closedErr != nil { // 3.
				out[i] = booking.BookResult{Err: closedErr}
				continue
			}
			pending = append(pending, i)
		}

		// The patients: do they exist, and (5) do they hold an active
		// appointment in another slot overlapping this one? One query.
		checks, err := checkPatients(ctx, q, st.slot, reqs, pending)
		if err != nil {
			return err
		}

		// 4, 6–7: the first places go to the eligible requests in arrival
		// order, one per patient. A request that finds no place while the
		// slot has holds past their deadline makes the batch reclaim them
		// (SPEC §6) and decide again: expiring them first is what the
		// expiry job would have done, so the answers are those of a slot
		// whose expired holds had already been released.
		placed, free, short := decidePlaces(st, reqs, pending, checks, out)
		var reclaimed []int64
		if short {
			if reclaimed, err = reclaim(ctx, tx, st, now); err != nil {
				return err
			}
			if len(reclaimed) > 0 {
				placed, free, _ = decidePlaces(st, reqs, pending, checks, out)
			}
		}
		if g := len(placed); g > 0 {
			if err := takePlaces(ctx, q, st.slot, g, pre != nil, now); err != nil {
				return err
			}
			if err := insertAppointments(ctx, q, st.slot, reqs, placed, free, now, out); err != nil {
				return err
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

		// Announce what this transaction made true: the new BOOKED
		// appointments (a HELD one is announced when it is paid) and the
		// holds reclaimed.
		var ns []booking.Notification
		for _, id := range reclaimed {
			ns = append(ns, booking.Notification{Kind: booking.NotifyExpiry, AppointmentID: id})
		}
		for _, i := range placed {
			if a := out[i].Appointment; a.Status == booking.StatusBooked {
				ns = append(ns, booking.Notification{Kind: booking.NotifyConfirmation, AppointmentID: a.ID})
			}
		}
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		var ee *enqueueError
		if errors.As(err, &ee) {
			return nil, err
		}
		if name := constraintName(err); name != "" {
			return nil, &violation{name: name, err: err}
		}
		return nil, err
	}
	return out, nil
}

// decidePlaces answers the pending requests from st and checks (steps 4–7
// without the writes): the ones that get a place are returned in arrival
// order with the queue numbers they get, and short says an eligible
// request found no place. It overwrites the answers of every pending
// request, so it can run again after a reclaim.
func decidePlaces(st *slotState, reqs []booking.BookRequest, pending []int, checks map[int64]patientCheck,
	out []booking.BookResult) (placed, free []int, short bool) {
	slotID := st.slot.ID
	// No more numbers than requests: capacity may be large.
	free = st.freeNumbers(min(st.slot.Capacity-st.slot.BookedCount, len(pending)))
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
			out[i].Err = bookingErr(conSlotPatientActve, slotID, nil)
		case c.overlapping: // 5.
			out[i].Err = bookingErr(conNoOverlap, slotID, nil)
		case got[p]:
			out[i].Err = bookingErr(conSlotPatientActve, slotID, nil)
		case len(placed) < len(free):
			got[p] = true
			placed = append(placed, i)
		default:
			out[i].Err = bookingErr(conSlotCapacity, slotID, nil)
			short = true
		}
	}
	return placed, free, short
}

// reclaimSQL expires the slot's holds past their deadline: the transition
// HELD → EXPIRED as a conditional update from the table's sources. The
// first status term repeats the partial index's WHERE so that SQLite walks
// appointments_slot_queue_active (only this slot's active rows).
var reclaimSQL = `UPDATE appointments SET status = 'EXPIRED', updated_at = ?1
	WHERE slot_id = ?2 AND status IN ('HELD', 'BOOKED')
	  AND status IN ` + statusList(booking.Sources(booking.StatusExpired)) + ` AND hold_expires_at <= ?1
	RETURNING id, patient_id, queue_no`

// reclaim expires st's slot's holds past their deadline, releases their
// places in the counter and in st, and returns their ids.
func reclaim(ctx context.Context, tx *sql.Tx, st *slotState, now time.Time) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, reclaimSQL, ts(now), st.slot.ID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id, p int64
		var q int
		if err := rows.Scan(&id, &p, &q); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
		delete(st.active, p)
		delete(st.taken, q)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if n := len(ids); n > 0 {
		if err := releasePlaces(ctx, tx, map[int64]int{st.slot.ID: n}); err != nil {
			return nil, err
		}
		st.slot.BookedCount -= n
	}
	return ids, nil
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
	overlapping bool // holds an active appointment in another slot overlapping this one
}

// checkPatients looks up the pending requests' patients in one query:
// whether each exists (patients' primary key) and whether it holds an
// active appointment in another slot overlapping sl's [start, end)
// (appointments_patient_idx).
func checkPatients(ctx context.Context, q querier, sl booking.Slot, reqs []booking.BookRequest, pending []int) (map[int64]patientCheck, error) {
	found := map[int64]patientCheck{}
	if len(pending) == 0 {
		return found, nil
	}
	patients := make([]int64, len(pending))
	for k, i := range pending {
		patients[k] = reqs[i].PatientID
	}
	pj, _ := json.Marshal(patients)
	rows, err := q.QueryContext(ctx, checkPatientsSQL, string(pj), sl.ID, ts(sl.EndAt), ts(sl.StartAt))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		var c patientCheck
		if err := rows.Scan(&p, &c.missing, &c.overlapping); err != nil {
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
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at) VALUES `)
	for k := range n {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
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
		args := make([]any, 0, len(part)*11)
		byPatient := map[int64]int{}
		for k, i := range part {
			r := reqs[i]
			args = append(args, sl.ID, r.PatientID, string(status), free[start+k], ts(sl.StartAt), ts(sl.EndAt),
				r.IdempotencyKey, r.Fingerprint, nullTS(hold), ts(now), ts(now))
			byPatient[r.PatientID] = i
			out[i] = booking.BookResult{Appointment: booking.Appointment{
				SlotID: sl.ID, DoctorID: sl.DoctorID, PatientID: r.PatientID, Status: status,
				QueueNumber: free[start+k], StartAt: sl.StartAt, EndAt: sl.EndAt, HoldExpiresAt: hold,
				CreatedAt: now, UpdatedAt: now, IdempotencyKey: r.IdempotencyKey, Fingerprint: r.Fingerprint,
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
