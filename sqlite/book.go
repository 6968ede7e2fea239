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

func readState(ctx context.Context, q querier, slotID int64) (*slotState, error) {
	sl, err := scanSlot(q.QueryRowContext(ctx, `SELECT `+slotCols+` FROM slots WHERE id = ?`, slotID))
	if err != nil {
		return nil, err
	}
	st := &slotState{slot: sl, active: map[int64]bool{}, taken: map[int]bool{}}
	// The IN list is written out so that SQLite uses the partial index
	// appointments_slot_queue_active; at most capacity rows.
	rows, err := q.QueryContext(ctx,
		`SELECT patient_id, queue_no FROM appointments
		  WHERE slot_id = ? AND status IN ('HELD', 'BOOKED')`, slotID)
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
	err := s.write(ctx, func(tx *sql.Tx) error {
		// 1. The slot, read under the write lock.
		st, err := readState(ctx, tx, slotID)
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
		sl := st.slot

		// 2. Idempotency: every (patient, key) of the batch in one query.
		existing, err := keyLookup(ctx, tx, reqs)
		if err != nil {
			return err
		}
		open := sl
		open.BookedCount = 0 // fullness is decided by the counter below
		closedErr := open.Bookable(now)

		first := map[pairKey]int{}
		dupOf := make([]int, len(reqs))
		var candidates []int
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
			switch {
			case closedErr != nil: // 3.
				out[i] = booking.BookResult{Err: closedErr}
			case st.active[r.PatientID]: // 4.
				out[i] = booking.BookResult{Err: bookingErr(conSlotPatientActve, slotID, nil)}
			default:
				candidates = append(candidates, i)
			}
		}

		// 5. Overlap with the patients' active appointments in other slots.
		overlapping, err := overlaps(ctx, tx, sl, reqs, candidates)
		if err != nil {
			return err
		}

		// 6–7. The first places go to the eligible requests in arrival
		// order, one per patient.
		// No more numbers than requests: capacity may be large.
		free := st.freeNumbers(min(sl.Capacity-sl.BookedCount, len(candidates)))
		var placed []int
		got := map[int64]bool{}
		for _, i := range candidates {
			p := reqs[i].PatientID
			switch {
			case overlapping[p]:
				out[i] = booking.BookResult{Err: bookingErr(conNoOverlap, slotID, nil)}
			case got[p]:
				out[i] = booking.BookResult{Err: bookingErr(conSlotPatientActve, slotID, nil)}
			case len(placed) < len(free):
				got[p] = true
				placed = append(placed, i)
			default:
				out[i] = booking.BookResult{Err: bookingErr(conSlotCapacity, slotID, nil)}
			}
		}
		if g := len(placed); g > 0 {
			if err := takePlaces(ctx, tx, sl, g, pre != nil, now); err != nil {
				return err
			}
			if err := insertAppointments(ctx, tx, sl, reqs, placed, free, now, out); err != nil {
				return err
			}
		}

		for i, j := range dupOf {
			if j >= 0 {
				out[i] = sameKeyOutcome(out[j], reqs[j], reqs[i])
			}
		}
		return nil
	})
	if err != nil {
		if name := constraintName(err); name != "" {
			return nil, &violation{name: name, err: err}
		}
		return nil, err
	}
	return out, nil
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
func keyLookup(ctx context.Context, tx *sql.Tx, reqs []booking.BookRequest) (map[pairKey]booking.Appointment, error) {
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
	rows, err := tx.QueryContext(ctx, `SELECT `+apptCols+apptFrom+`
		WHERE a.patient_id IN (SELECT value FROM json_each(?))
		  AND a.idempotency_key IN (SELECT value FROM json_each(?))`, string(pj), string(kj))
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

// overlaps reports which candidates' patients hold an active appointment in
// another slot overlapping sl's [start, end).
func overlaps(ctx context.Context, tx *sql.Tx, sl booking.Slot, reqs []booking.BookRequest, candidates []int) (map[int64]bool, error) {
	found := map[int64]bool{}
	if len(candidates) == 0 {
		return found, nil
	}
	patients := make([]int64, len(candidates))
	for k, i := range candidates {
		patients[k] = reqs[i].PatientID
	}
	pj, _ := json.Marshal(patients)
	rows, err := tx.QueryContext(ctx,
		`SELECT DISTINCT patient_id FROM appointments
		  WHERE patient_id IN (SELECT value FROM json_each(?)) AND status IN ('HELD', 'BOOKED')
		    AND slot_id <> ? AND start_at < ? AND end_at > ?`,
		string(pj), sl.ID, ts(sl.EndAt), ts(sl.StartAt))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		found[p] = true
	}
	return found, rows.Err()
}

// takePlaces is the decision: the conditional update of the counter that
// must affect the slot's row. The racy mode instead writes back the count it
// read earlier plus g, absolutely.
func takePlaces(ctx context.Context, tx *sql.Tx, sl booking.Slot, g int, racy bool, now time.Time) error {
	var res sql.Result
	var err error
	if racy {
		res, err = tx.ExecContext(ctx, `UPDATE slots SET booked_count = ? WHERE id = ?`, sl.BookedCount+g, sl.ID)
	} else {
		res, err = tx.ExecContext(ctx,
			`UPDATE slots SET booked_count = booked_count + ?1
			  WHERE id = ?2 AND status = 'OPEN' AND opens_at <= ?3 AND start_at > ?3
			    AND booked_count + ?1 <= capacity`, g, sl.ID, ts(now))
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

// insertRows bounds one multi-row INSERT (12 parameters a row) well under
// SQLite's limit on bound parameters.
const insertRows = 500

// insertAppointments inserts the placed requests' appointments with
// multi-row INSERT ... RETURNING and fills their results. RETURNING's row
// order is unspecified in SQLite, so ids are matched by patient (one place
// per patient per batch).
func insertAppointments(ctx context.Context, tx *sql.Tx, sl booking.Slot, reqs []booking.BookRequest,
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
		var b strings.Builder
		b.WriteString(`INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at) VALUES `)
		args := make([]any, 0, len(part)*11)
		byPatient := map[int64]int{}
		for k, i := range part {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
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
		b.WriteString(" RETURNING id, patient_id")
		rows, err := tx.QueryContext(ctx, b.String(), args...)
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
