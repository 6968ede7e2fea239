package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

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
		           WHERE slot_id = s.id AND status IN ` + booking.ActiveSQL + `), 0),
		r.opens_at, r.closes_at, r.quota, r.state, r.lottery
		FROM slots s LEFT JOIN rounds r ON r.id = s.round_id WHERE s.id = ?`
	// takenQueueSQL walks the slot's queue numbers in use in order, through
	// appointments_slot_queue_active; read only when numbers below the top
	// may be free, and only until enough free ones are found.
	takenQueueSQL = `SELECT queue_no FROM appointments
		  WHERE slot_id = ? AND status IN ` + booking.ActiveSQL + ` ORDER BY queue_no`
	keyLookupSQL = `SELECT ` + apptCols + apptFrom + `
		WHERE a.patient_id IN (SELECT value FROM json_each(?))
		  AND a.idempotency_key IN (SELECT value FROM json_each(?))`
	// checkPatientsSQL answers, per distinct patient of the batch: missing,
	// already holding a place in this slot (appointments_slot_patient_active),
	// holding an overlapping place elsewhere (appointments_patient_key_key), and
	// the allocations counted in the slot's round ?5 (round_quotas' primary
	// key; nothing to find for an ordinary slot, whose ?5 is NULL). Round
	// allocations take no part in the overlap rule, on either side: the
	// round's quota governs them (as appointments_no_overlap's WHERE).
	checkPatientsSQL = `SELECT p.value,
		        NOT EXISTS (SELECT 1 FROM patients WHERE id = p.value),
		        EXISTS (SELECT 1 FROM appointments h
		                 WHERE h.slot_id = ?2 AND h.patient_id = p.value AND h.status IN ` + booking.ActiveSQL + `),
		        ?5 IS NULL AND EXISTS (SELECT 1 FROM appointments o
		                 WHERE o.patient_id = p.value AND o.status IN ` + booking.ActiveSQL + ` AND o.round_id IS NULL
		                   AND o.slot_id <> ?2 AND o.start_at < ?3 AND o.end_at > ?4),
		        coalesce((SELECT used FROM round_quotas WHERE round_id = ?5 AND patient_id = p.value), 0),
		        EXISTS (SELECT 1 FROM patients WHERE id = p.value AND NOT active),
		        g.selection_at, g.selection_ends_at
		   FROM (SELECT DISTINCT value FROM json_each(?1)) p
		   LEFT JOIN round_registrations g ON g.round_id = ?5 AND g.patient_id = p.value`
	// takeQuotaSQL counts the new allocations in the round (one per
	// patient: a batch is one slot), patients in ascending id order. It is
	// the batch's last statement, and round_quotas_within_quota its last
	// line of defence. (WHERE true: SQLite's upsert after a SELECT needs it
	// to parse.)
	takeQuotaSQL = `INSERT INTO round_quotas (round_id, patient_id, used, quota)
		SELECT ?1, value, 1, ?2 FROM json_each(?3) WHERE true ORDER BY value
		ON CONFLICT (round_id, patient_id) DO UPDATE SET used = round_quotas.used + excluded.used`
	// staleHoldsSQL lists the slot's holds past their deadline, through
	// appointments_slot_held_idx (its WHERE repeated so that SQLite uses it).
	staleHoldsSQL = `SELECT id, patient_id, queue_no FROM appointments
		  WHERE slot_id = ?1 AND status = ` + booking.StatusHeldSQL + ` AND hold_expires_at <= ?2` + notOfferSQL
	// notOfferSQL keeps the reclaim off a timed-out waitlist offer: the
	// expiry job ends it, so that its entry ends EXPIRED and the place
	// passes to the next entry before it returns to open booking
	// (booking/waitlist.go). Evaluated only for the slot's stale holds.
	notOfferSQL = `
		  AND NOT EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.appointment_id = appointments.id AND w.state = ` + booking.EntryOfferedSQL + `)`
	takePlacesSQL = `UPDATE slots SET booked_count = booked_count + ?1
		  WHERE id = ?2 AND status = ` + booking.SlotOpenSQL + ` AND opens_at <= ?3 AND start_at > ?3
		    AND booked_count + ?1 <= capacity`
	insertOneSQL = insertSQL(1)
)

// bookSQL lists them for the cache.
var bookSQL = []string{slotStateSQL, takenQueueSQL, keyLookupSQL, checkPatientsSQL, staleHoldsSQL, takePlacesSQL,
	insertOneSQL, reclaimSQL, takeQuotaSQL, bookPolicySQL, resourceZoneSQL, patientLoadSQL, personsSQL, invitationsSQL, useInvitationSQL}

// readState reads the slot, its round (nil for an ordinary slot) and its
// top queue number into rd.
func readState(ctx context.Context, q querier, slotID int64, rd *booking.BookReads) error {
	sl := &rd.Slot
	var sched, round sql.NullInt64
	var start, end, opens int64
	var rOpens, rCloses, rQuota, rLottery sql.NullInt64
	var rState sql.NullString
	err := q.QueryRowContext(ctx, slotStateSQL, slotID).Scan(&sl.ID, &sl.DoctorID, &sched, &start, &end,
		&sl.Capacity, &sl.BookedCount, &opens, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &round, &rd.TopQueue,
		&rOpens, &rCloses, &rQuota, &rState, &rLottery)
	if err != nil {
		return err
	}
	rd.Found = true
	sl.ScheduleID, sl.RoundID = sched.Int64, round.Int64
	sl.StartAt, sl.EndAt, sl.OpensAt = fromTS(start), fromTS(end), fromTS(opens)
	if round.Valid && rState.Valid {
		rd.Round = &booking.Round{ID: round.Int64, OpensAt: fromTS(rOpens.Int64), ClosesAt: fromTS(rCloses.Int64),
			Quota: int(rQuota.Int64), State: rState.String}
		if rLottery.Int64 != 0 {
			// The decision needs to know only that there is a lottery.
			rd.Round.Lottery = &booking.Lottery{}
		}
	}
	return nil
}

// takenNumbers walks the slot's queue numbers in use in ascending order;
// *errp gets the read's error. The caller stops as soon as it has enough.
func takenNumbers(ctx context.Context, q querier, slotID int64, errp *error) iter.Seq[int] {
	return func(yield func(int) bool) {
		rows, err := q.QueryContext(ctx, takenQueueSQL, slotID)
		if err != nil {
			*errp = err
			return
		}
		defer rows.Close()
		for rows.Next() {
			var used int
			if err := rows.Scan(&used); err != nil {
				*errp = err
				return
			}
			if !yield(used) {
				return
			}
		}
		*errp = rows.Err()
	}
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
// them in order (booking.DecideBooking; docs/contracts/store.md). The transaction is
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

	out, err = booking.DecideAlone(reqs, func(r booking.BookRequest) (booking.BookResult, error) {
		return s.bookAlone(ctx, slotID, r, now)
	})
	if err != nil {
		return nil, mapErr(err, "")
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
	if v.name != booking.ConPatientKey {
		return booking.BookResult{Err: bookingErr(v.name, slotID, v.err)}, nil
	}
	a, err := scanAppt(q.QueryRowContext(ctx,
		`SELECT `+apptCols+apptFrom+`WHERE a.patient_id = ? AND a.idempotency_key = ?`, r.PatientID, r.IdempotencyKey))
	if err != nil {
		return booking.BookResult{}, fmt.Errorf("sqlite: look up idempotency key after violation: %w", err)
	}
	return booking.ReplayOf(a, r), nil
}

// bookBatch decides the batch in one write transaction. It
// returns a *violation (after rolling back) when a constraint fired.
func (s *Store) bookBatch(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	now = micro(now)
	var pre *booking.BookReads
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

// decideInTx decides reqs, all for slotID, inside tx: it makes the reads
// of booking.DecideBooking under the write lock, writes the decision (the
// reclaim, the conditional update, the inserts and, for a round's slot, the
// quota) and returns the answers and the notifications the change
// announces, for the caller to enqueue and commit. Book runs it as a
// transaction of its own; DecidePending runs many in one transaction.
// Errors come back unmapped; after a constraint violation the caller must
// roll back what the batch wrote (the whole transaction, or its savepoint),
// because SQLite undoes only the failed statement. pre, when set, replaces
// the slot's state read in tx (the racy mode).
func (s *Store) decideInTx(ctx context.Context, tx *sql.Tx, slotID int64, reqs []booking.BookRequest, now time.Time,
	pre *booking.BookReads) ([]booking.BookResult, []booking.Notification, error) {
	q := s.stmts.in(tx)
	var rd booking.BookReads
	if err := readState(ctx, q, slotID, &rd); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, nil, err
	}
	if pre != nil {
		rd = *pre
	}
	if rd.Found {
		var err error
		if rd.Existing, err = keyLookup(ctx, q, reqs); err != nil {
			return nil, nil, err
		}
		if booking.SlotRefusal(rd.Slot, rd.Round, now) == nil {
			if err := checkPatients(ctx, q, &rd, reqs); err != nil {
				return nil, nil, err
			}
			if err := staleHolds(ctx, q, &rd, now); err != nil {
				return nil, nil, err
			}
			if rd.Round == nil {
				if err := s.patientLoad(ctx, q, &rd, reqs, now); err != nil {
					return nil, nil, err
				}
				if err := waiting(ctx, q, &rd, reqs); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	d := booking.DecideBooking(reqs, rd, now)
	if d.Reclaim {
		if err := reclaim(ctx, tx, q, rd.Slot.ID, len(d.Stale), now); err != nil {
			return nil, nil, err
		}
	}
	var ids []int64
	if g := len(d.Winners); g > 0 {
		if d.Queue == nil {
			var rerr error
			err := d.QueueFrom(takenNumbers(ctx, q, slotID, &rerr))
			if rerr != nil {
				return nil, nil, rerr
			}
			if err != nil {
				return nil, nil, err
			}
		}
		counter := rd.Slot.BookedCount + g // the racy mode's absolute write
		if d.Reclaim {
			counter -= len(d.Stale)
		}
		if err := takePlaces(ctx, q, slotID, g, pre != nil, counter, now); err != nil {
			return nil, nil, err
		}
		var err error
		if ids, err = insertAppointments(ctx, q, d); err != nil {
			return nil, nil, err
		}
		if rd.Round != nil {
			if err := takeQuota(ctx, q, rd.Round, reqs, d.Winners); err != nil {
				return nil, nil, err
			}
		}
		if err := useInvitations(ctx, q, s.keys, d.InvitationsUsed(ids), now); err != nil {
			return nil, nil, err
		}
		if len(d.Fulfilled) > 0 {
			ids, _ := json.Marshal(d.Fulfilled)
			if _, err := q.ExecContext(ctx, fulfilSQL, ts(now), string(ids)); err != nil {
				return nil, nil, err
			}
		}
	}
	out, ns := d.Finish(ids)
	if len(d.Winners) > 0 {
		if err := writeAudit(ctx, tx, d.AuditEntries(out)...); err != nil {
			return nil, nil, err
		}
	}
	return out, ns, nil
}

// waitingSQL reads the batch's patients' WAITING waitlist entries, and
// fulfilSQL ends those a new place fulfils (booking.BookDecision.Fulfilled).
const (
	waitingSQL = `SELECT ` + entryCols + ` FROM waitlist_entries w
		WHERE w.patient_id IN (SELECT value FROM json_each(?)) AND w.state = ` + booking.EntryWaitingSQL
	fulfilSQL = `UPDATE waitlist_entries SET state = ` + booking.EntryFulfilledSQL + `, updated_at = ?
		WHERE id IN (SELECT value FROM json_each(?)) AND state = ` + booking.EntryWaitingSQL
)

// waiting reads the batch's patients' WAITING entries into rd and, when
// there are some, the slot's doctor that booking.EntryMatches needs.
func waiting(ctx context.Context, q querier, rd *booking.BookReads, reqs []booking.BookRequest) error {
	patients := make([]int64, len(reqs))
	for i, r := range reqs {
		patients[i] = r.PatientID
	}
	pj, _ := json.Marshal(patients)
	var err error
	if rd.Waiting, err = queryEntries(ctx, q, waitingSQL, string(pj)); err != nil || len(rd.Waiting) == 0 {
		return err
	}
	rd.Doctor.ID = rd.Slot.DoctorID
	return q.QueryRowContext(ctx, `SELECT COALESCE(department_id, 0), timezone FROM resources WHERE id = ?`, rd.Slot.DoctorID).
		Scan(&rd.Doctor.DepartmentID, &rd.Doctor.TimeZone)
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

// reclaimSQL expires the slot's holds past their deadline (waitlist offers
// aside, notOfferSQL): the transition
// HELD → EXPIRED as a conditional update from the table's sources. The
// first status term repeats the partial index's WHERE so that SQLite walks
// appointments_slot_held_idx (only this slot's stale holds): a full slot's
// every batch tries it, so it must not cost a scan of the slot's places.
var reclaimSQL = `UPDATE appointments SET status = ` + booking.StatusExpiredSQL + `, updated_at = ?1
	WHERE slot_id = ?2 AND status = ` + booking.StatusHeldSQL + ` AND hold_expires_at <= ?1
	  AND status IN ` + booking.SQLList(booking.Sources(booking.StatusExpired)) + notOfferSQL

// reclaim expires the slot's holds past their deadline and releases their
// places; want is how many the decision read, under the same write lock.
func reclaim(ctx context.Context, tx *sql.Tx, q execer, slotID int64, want int, now time.Time) error {
	res, err := q.ExecContext(ctx, reclaimSQL, ts(now), slotID)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if int(n) != want {
		return fmt.Errorf("sqlite: slot %d: reclaimed %d expired holds of the %d read under the write lock", slotID, n, want)
	}
	return releasePlaces(ctx, tx, map[int64]int{slotID: want})
}

// staleHolds reads the slot's holds past their deadline into rd.
func staleHolds(ctx context.Context, q querier, rd *booking.BookReads, now time.Time) error {
	rows, err := q.QueryContext(ctx, staleHoldsSQL, rd.Slot.ID, ts(now))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h booking.StaleHold
		if err := rows.Scan(&h.ID, &h.PatientID, &h.QueueNumber); err != nil {
			return err
		}
		rd.Stale = append(rd.Stale, h)
	}
	return rows.Err()
}

// readStateSeparately is the racy mode's read: its own read transaction on
// the reader pool, finished before the write transaction begins.
func (s *Store) readStateSeparately(ctx context.Context, slotID int64) (*booking.BookReads, error) {
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rd := &booking.BookReads{}
	return rd, readState(ctx, tx, slotID, rd)
}

// keyLookup finds the appointments already made with the batch's
// (patient, key) pairs. It filters patients and keys separately (both use
// the unique index) and keeps only the exact pairs.
func keyLookup(ctx context.Context, q querier, reqs []booking.BookRequest) (map[booking.PatientKey]booking.Appointment, error) {
	want := map[booking.PatientKey]bool{}
	var patients []int64
	var keys []string
	for _, r := range reqs {
		want[booking.PatientKey{PatientID: r.PatientID, Key: r.IdempotencyKey}] = true
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
	found := map[booking.PatientKey]booking.Appointment{}
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			return nil, err
		}
		if pk := (booking.PatientKey{PatientID: a.PatientID, Key: a.IdempotencyKey}); want[pk] {
			found[pk] = a
		}
	}
	return found, rows.Err()
}

// checkPatients looks up the batch's patients in one query: whether each
// exists (patients' primary key: answered by the decision rather than left
// to the foreign key, which would fail the whole batch), holds a place in
// the slot, holds an active appointment in another slot overlapping it
// (appointments_patient_key_key; never for a round's slot), and, for a round's
// slot, how many allocations round_quotas counts for it.
func checkPatients(ctx context.Context, q querier, rd *booking.BookReads, reqs []booking.BookRequest) error {
	rd.Missing, rd.ActiveHere, rd.Overlapping, rd.Used = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}, map[int64]int{}
	rd.Load, rd.Turns = map[int64]booking.PatientLoad{}, map[int64]booking.Turn{}
	patients := make([]int64, len(reqs))
	for k, r := range reqs {
		patients[k] = r.PatientID
	}
	pj, _ := json.Marshal(patients)
	sl := rd.Slot
	var round any
	if rd.Round != nil {
		round = rd.Round.ID
	}
	rows, err := q.QueryContext(ctx, checkPatientsSQL, string(pj), sl.ID, ts(sl.EndAt), ts(sl.StartAt), round)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p int64
		var missing, here, overlapping, inactive bool
		var used int
		var turn, ends sql.NullInt64
		if err := rows.Scan(&p, &missing, &here, &overlapping, &used, &inactive, &turn, &ends); err != nil {
			return err
		}
		if turn.Valid {
			rd.Turns[p] = booking.Turn{From: fromTS(turn.Int64), Until: optTS(ends)}
		}
		rd.Missing[p], rd.ActiveHere[p], rd.Overlapping[p], rd.Used[p] = missing, here, overlapping, used
		// A round's slot reads no PatientLoad (its quota governs), but a
		// patient who has left is refused there too.
		rd.Load[p] = booking.PatientLoad{Inactive: inactive}
	}
	return rows.Err()
}

// takePlaces is the decision's conditional update of the counter, which
// must affect the slot's row. The racy mode instead writes counter, read
// earlier, absolutely.
func takePlaces(ctx context.Context, q execer, slotID int64, g int, racy bool, counter int, now time.Time) error {
	var res sql.Result
	var err error
	if racy {
		res, err = q.ExecContext(ctx, `UPDATE slots SET booked_count = ? WHERE id = ?`, counter, slotID)
	} else {
		res, err = q.ExecContext(ctx, takePlacesSQL, g, slotID, ts(now))
	}
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("sqlite: conditional update of slot %d affected %d rows under the write lock", slotID, n)
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

// insertAppointments inserts the winners' appointments of d with
// multi-row INSERT ... RETURNING and returns their ids in the order of
// d.Winners. RETURNING's row order is unspecified in SQLite, so ids are
// matched by patient (one place per patient per batch).
func insertAppointments(ctx context.Context, q querier, d *booking.BookDecision) ([]int64, error) {
	ids := make([]int64, len(d.Winners))
	for start := 0; start < len(d.Winners); start += insertRows {
		end := min(start+insertRows, len(d.Winners))
		args := make([]any, 0, (end-start)*12)
		byPatient := map[int64]int{}
		for k := start; k < end; k++ {
			a := d.Appointment(k, 0)
			args = append(args, a.SlotID, a.PatientID, string(a.Status), a.QueueNumber, ts(a.StartAt), ts(a.EndAt),
				a.IdempotencyKey, a.Fingerprint, nullTS(a.HoldExpiresAt), ts(a.CreatedAt), ts(a.UpdatedAt), nullID(a.RoundID))
			byPatient[a.PatientID] = k
		}
		rows, err := q.QueryContext(ctx, insertSQL(end-start), args...)
		if err != nil {
			return nil, err
		}
		n := 0
		for rows.Next() {
			var id, p int64
			if err := rows.Scan(&id, &p); err != nil {
				rows.Close()
				return nil, err
			}
			ids[byPatient[p]] = id
			n++
		}
		// A constraint violation of an INSERT ... RETURNING surfaces here.
		if err := rows.Err(); err != nil {
			rows.Close()
			return nil, err
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if n != end-start {
			return nil, fmt.Errorf("sqlite: inserted %d appointments, want %d", n, end-start)
		}
	}
	return ids, nil
}
