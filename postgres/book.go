package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// apptColumns reads an appointment joined as a with its slot as s (for the
// doctor, which is the slot's resource).
const apptColumns = `a.id, a.slot_id, s.resource_id, a.patient_id, a.status, a.queue_no, a.start_at, a.end_at,
	a.hold_expires_at, a.created_at, a.updated_at, a.idempotency_key, a.fingerprint, COALESCE(a.round_id, 0)`

func scanAppointment(r pgx.Row) (booking.Appointment, error) {
	var a booking.Appointment
	err := r.Scan(&a.ID, &a.SlotID, &a.DoctorID, &a.PatientID, &a.Status, &a.QueueNumber, &a.StartAt, &a.EndAt,
		&a.HoldExpiresAt, &a.CreatedAt, &a.UpdatedAt, &a.IdempotencyKey, &a.Fingerprint, &a.RoundID)
	utcAppointment(&a)
	return a, err
}

func utcAppointment(a *booking.Appointment) {
	a.StartAt, a.EndAt, a.CreatedAt, a.UpdatedAt = a.StartAt.UTC(), a.EndAt.UTC(), a.CreatedAt.UTC(), a.UpdatedAt.UTC()
	if a.HoldExpiresAt != nil {
		t := a.HoldExpiresAt.UTC()
		a.HoldExpiresAt = &t
	}
}

// The statements of Book. The reads run in one pipeline right after the
// slot's row lock is granted; each is a statement of its own so that, under
// READ COMMITTED, its snapshot is taken after the lock and sees everything
// the previous holder committed.
const (
	// sqlLockSlot locks the slot and reads its round with it, when it has
	// one: an ordinary slot costs no extra round trip or statement. The
	// round row is not locked (DecidePending locks it; a booking only reads
	// its clock and quota).
	sqlLockSlot = `SELECT ` + slotRoundColumns + `
		FROM slots s LEFT JOIN rounds r ON r.id = s.round_id WHERE s.id = $1 FOR UPDATE OF s`
	// sqlReadSlot is the racy knob's unlocked read.
	sqlReadSlot = `SELECT ` + slotRoundColumns + `
		FROM slots s LEFT JOIN rounds r ON r.id = s.round_id WHERE s.id = $1`
	slotRoundColumns = `s.id, s.resource_id, COALESCE(s.schedule_id, 0), s.start_at, s.end_at, s.capacity,
		s.booked_count, s.opens_at, s.status, s.fee_cents, s.hold_seconds, COALESCE(s.round_id, 0),
		r.name, r.opens_at, r.closes_at, r.term_start, r.term_end, r.quota, r.state, r.created_at`
	// sqlQuotaUse reads the batch's patients' allocations counted in the
	// slot's round (nothing for an ordinary slot). A statement of its own
	// after the lock, so that it sees what the previous holder committed.
	sqlQuotaUse = `SELECT q.patient_id, q.used FROM slots s JOIN round_quotas q ON q.round_id = s.round_id
		WHERE s.id = $1 AND q.patient_id = ANY($2::bigint[])`
	// sqlQuotaTake counts the new allocations in the round, patients in
	// ascending id order so that two batches (two slots of one round) lock
	// the quota rows in the same order and never deadlock. The CHECK
	// round_quotas_within_quota fires when a transaction on another slot
	// took the quota since the read: the batch is then decided again,
	// request by request.
	sqlQuotaTake = `INSERT INTO round_quotas (round_id, patient_id, used, quota)
		SELECT $1::bigint, p, 1, $3::integer FROM unnest($2::bigint[]) AS p ORDER BY p
		ON CONFLICT (round_id, patient_id) DO UPDATE SET used = round_quotas.used + excluded.used`
	// sqlByKeys finds the appointments already made with the batch's
	// (patient, Idempotency-Key) pairs, through appointments_patient_key_key.
	sqlByKeys = `SELECT ` + apptColumns + `
		FROM unnest($1::bigint[], $2::text[]) AS k(patient_id, idem_key)
		JOIN appointments a ON a.patient_id = k.patient_id AND a.idempotency_key = k.idem_key
		JOIN slots s ON s.id = a.slot_id`
	// sqlActiveOverlapping finds the batch's patients' active appointments
	// whose time overlaps the slot: in the slot itself (already booked) or
	// in another slot (overlapping). Round allocations are exempt from the
	// overlap rule on both sides (the round's quota governs them), as in
	// appointments_no_overlap.
	sqlActiveOverlapping = `SELECT a.patient_id, a.slot_id
		FROM appointments a, slots s
		WHERE s.id = $1 AND a.patient_id = ANY($2::bigint[]) AND a.status IN ('HELD', 'BOOKED')
		  AND a.start_at < s.end_at AND a.end_at > s.start_at
		  AND (a.slot_id = s.id OR (s.round_id IS NULL AND a.round_id IS NULL))`
	// sqlTopQueue is the highest queue number in use, read backwards from
	// appointments_slot_queue_active in O(log n): when it equals the slot's
	// counter no number below it is free, and the next places are simply
	// the numbers after it (the common case, and the rush's).
	sqlTopQueue = `SELECT coalesce(max(queue_no), 0) FROM appointments
		WHERE slot_id = $1 AND status IN ('HELD', 'BOOKED')`
	// sqlSlotStaleHolds lists the slot's holds past their deadline (that Book
	// may reclaim), through appointments_slot_held.
	sqlSlotStaleHolds = `SELECT queue_no FROM appointments
		WHERE slot_id = $1 AND status = 'HELD' AND hold_expires_at <= $2`
	// sqlTakenQueue lists every queue number in use: read only when numbers
	// below the top may be free (after cancels, expiries, or a reclaim).
	sqlTakenQueue = `SELECT queue_no FROM appointments WHERE slot_id = $1 AND status IN ('HELD', 'BOOKED')`

	// sqlTake is the decision and the inserts in one statement: the
	// conditional update takes g places or matches no row, and then the
	// INSERT ... SELECT FROM u inserts nothing, which Book reports as an
	// internal error.
	sqlTake = `WITH u AS (
			UPDATE slots SET booked_count = booked_count + $2::integer
			WHERE id = $1 AND status = 'OPEN' AND opens_at <= $3 AND start_at > $3
			  AND booked_count + $2::integer <= capacity
			RETURNING id, start_at, end_at, round_id)
		` + sqlInsertFromU
	// sqlTakeRacy is the racy knob's absolute, unconditional write of the
	// counter read earlier without a lock.
	sqlTakeRacy = `WITH u AS (
			UPDATE slots SET booked_count = $2::integer WHERE id = $1
			RETURNING id, start_at, end_at, round_id)
		` + sqlInsertFromU
	sqlInsertFromU = `INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at, round_id)
		SELECT u.id, r.patient_id, $4::text, r.queue_no, u.start_at, u.end_at, r.idem_key, r.fingerprint,
			$5::timestamptz, $3::timestamptz, $3::timestamptz, u.round_id
		FROM u, unnest($6::bigint[], $7::integer[], $8::text[], $9::text[]) AS r(patient_id, queue_no, idem_key, fingerprint)
		RETURNING id, queue_no, start_at, end_at, hold_expires_at, created_at, updated_at`
)

// sqlReclaim expires the slot's holds past their deadline by a conditional
// update (HELD is the only source of EXPIRED) and releases their places,
// under the slot's lock that Book holds. Nothing else can hold those
// appointments' locks: they change only under their slot's lock.
var sqlReclaim = `WITH x AS (
		UPDATE appointments SET status = 'EXPIRED', updated_at = $2
		WHERE slot_id = $1 AND status IN ` + expireFrom + ` AND hold_expires_at <= $2
		RETURNING id),
	d AS (
		UPDATE slots SET booked_count = booked_count - (SELECT count(*) FROM x)::integer WHERE id = $1)
	SELECT id FROM x`

type idemKey struct {
	patientID int64
	key       string
}

// Book decides reqs, all for slotID, in one transaction and answers them in
// order; see docs/contracts/store.md. When more requests are eligible than
// places are free, the slot's holds past their deadline are expired first,
// in the same transaction. The enqueuer (SetEnqueuer) gets a confirmation
// for each new BOOKED appointment and an expiry notice for each reclaimed
// hold, inside the transaction. If a constraint fires (a race with a
// transaction on another slot) the batch is rolled back and each request
// decided alone.
func (s *Store) Book(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	// Stored times have microsecond precision; answering with the stored
	// value makes a replay equal to the original answer.
	now = now.UTC().Truncate(time.Microsecond)
	res, err := s.bookBatch(ctx, slotID, reqs, now)
	if err == nil {
		return res, nil
	}
	if !retryAlone(err) {
		return nil, translate(err, "")
	}
	return s.bookAlone(ctx, slotID, reqs, now)
}

// bookAlone decides each request in a transaction of its own, in order. A
// repeated (patient, key) gets the earlier one's error, or is decided again
// when the earlier one succeeded, which finds its row and replays it.
func (s *Store) bookAlone(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	results := make([]booking.BookResult, len(reqs))
	first := make(map[idemKey]int, len(reqs))
	for i, r := range reqs {
		k := idemKey{r.PatientID, r.IdempotencyKey}
		if j, ok := first[k]; ok && results[j].Err != nil {
			results[i].Err = copyErr(results[j].Err)
			continue
		}
		first[k] = i
		res, err := s.bookOne(ctx, slotID, r, now)
		if err != nil {
			return nil, err
		}
		results[i] = res
	}
	return results, nil
}

// bookOne decides one request; a constraint violation is its answer.
func (s *Store) bookOne(ctx context.Context, slotID int64, r booking.BookRequest, now time.Time) (booking.BookResult, error) {
	const attempts = 3
	var err error
	for range attempts {
		var res []booking.BookResult
		res, err = s.bookBatch(ctx, slotID, []booking.BookRequest{r}, now)
		if err == nil {
			return res[0], nil
		}
		if !retryAlone(err) {
			return booking.BookResult{}, translate(err, "")
		}
		switch constraintOf(err) {
		case "":
			continue // a deadlock: try again
		case conPatientKey:
			// Another transaction committed this key meanwhile: answer as
			// a retry of it.
			a, lerr := scanAppointment(s.pool.QueryRow(ctx,
				`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
				 WHERE a.patient_id = $1 AND a.idempotency_key = $2`, r.PatientID, r.IdempotencyKey))
			if lerr != nil {
				return booking.BookResult{}, translate(lerr, "")
			}
			return replayOrReused(a, r), nil
		default:
			e := translate(err, "")
			var be *booking.Error
			if errors.As(e, &be) {
				be.SlotID = slotID
				return booking.BookResult{Err: be}, nil
			}
			return booking.BookResult{}, e
		}
	}
	return booking.BookResult{}, translate(err, "")
}

// replayOrReused answers a request whose key already made appointment a.
func replayOrReused(a booking.Appointment, r booking.BookRequest) booking.BookResult {
	if a.Fingerprint == r.Fingerprint {
		return booking.BookResult{Appointment: a, Replayed: true}
	}
	return booking.BookResult{Err: &booking.Error{Code: booking.CodeKeyReused,
		Message: "this Idempotency-Key was already used for a different request", SlotID: a.SlotID}}
}

// copyErr gives each result its own *booking.Error.
func copyErr(err error) error {
	var be *booking.Error
	if errors.As(err, &be) {
		c := *be
		return &c
	}
	return err
}

func slotErr(code booking.Code, slotID int64, msg string) error {
	return &booking.Error{Code: code, Message: msg, SlotID: slotID}
}

// bookBatch runs the one-transaction decision. It returns a driver error
// (untranslated, so that Book can tell constraint violations apart) when
// any statement fails; the transaction is then rolled back.
//
// Round trips: one pipeline begins the transaction, locks the slot and makes
// every read; one takes the places (reclaiming expired holds first when
// needed) and inserts the appointments; the enqueuer, when there is
// something to announce, makes its own; and the commit is the last.
func (s *Store) bookBatch(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	b := &pgx.Batch{}
	b.BeginTx(pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	s.queueReads(b, slotID, reqs, now)
	br := s.pool.SendBatch(ctx, b)
	tx := br.Tx()
	defer rollback(ctx, tx)
	_, err := br.Exec() // BEGIN
	var rd bookReads
	if err == nil {
		rd, err = readBatch(br, slotID)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	results, wrote, err := s.decide(ctx, tx, slotID, reqs, rd, now)
	if err != nil {
		return nil, err
	}
	if wrote {
		if err := tx.Commit(ctx); err != nil {
			return nil, err
		}
	}
	// Without a write the transaction did nothing: the deferred rollback
	// ends it, at the cost a commit would have had.
	return results, nil
}

// decideInTx runs the decision of a batch for slotID inside tx, which the
// caller commits (DecidePending: many batches, one transaction). Like
// bookBatch it returns driver errors untranslated; tx is then unusable.
func (s *Store) decideInTx(ctx context.Context, tx pgx.Tx, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	b := &pgx.Batch{}
	s.queueReads(b, slotID, reqs, now)
	br := tx.SendBatch(ctx, b)
	rd, err := readBatch(br, slotID)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	results, _, err := s.decide(ctx, tx, slotID, reqs, rd, now)
	return results, err
}

// queueReads queues the statements of the read pipeline: the slot's lock
// (with its round) and every read, each a statement of its own after the
// lock.
func (s *Store) queueReads(b *pgx.Batch, slotID int64, reqs []booking.BookRequest, now time.Time) {
	patients := make([]int64, len(reqs))
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		patients[i], keys[i] = r.PatientID, r.IdempotencyKey
	}
	if s.racy {
		b.Queue(sqlReadSlot, slotID)
	} else {
		b.Queue(sqlLockSlot, slotID)
	}
	b.Queue(sqlByKeys, patients, keys)
	b.Queue(sqlActiveOverlapping, slotID, patients)
	b.Queue(sqlTopQueue, slotID)
	b.Queue(sqlSlotStaleHolds, slotID, now)
	b.Queue(sqlQuotaUse, slotID, patients)
}

// decide classifies reqs from what the read pipeline found under the
// slot's lock, takes the places of the winners and hands the enqueuer its
// notifications, all in tx; wrote says whether it changed anything.
func (s *Store) decide(ctx context.Context, tx pgx.Tx, slotID int64, reqs []booking.BookRequest, rd bookReads, now time.Time) (results []booking.BookResult, wrote bool, err error) {
	results = make([]booking.BookResult, len(reqs))
	if !rd.found {
		for i := range results {
			results[i].Err = booking.NotFound("slot")
		}
		return results, false, nil
	}
	slot := rd.slot

	// Whether the slot takes bookings at all, fullness aside (that is
	// decided per request below). A round's clock and state come first: a
	// closed round is closed even before its opening time.
	var closedErr error
	if rd.round != nil {
		if e := rd.round.Refusal(now, slotID); e != nil {
			closedErr = e
		}
	}
	if closedErr == nil {
		open := slot
		open.BookedCount = 0
		if e := open.Bookable(now); e != nil {
			closedErr = e
		}
	}

	// Classify every request but for fullness; eligible lists, in arrival
	// order, the requests that get a place if one is left. A patient's
	// later request waits on the fate of the earlier (samePatient): already
	// booked if that one gets a place, else full like it.
	first := make(map[idemKey]int, len(reqs))
	dupOf := make(map[int]int)
	pending := make(map[int64]int)
	samePatient := make(map[int]int)
	var eligible []int
	for i, r := range reqs {
		k := idemKey{r.PatientID, r.IdempotencyKey}
		if a, ok := rd.existing[k]; ok {
			results[i] = replayOrReused(a, r)
			continue
		}
		if j, ok := first[k]; ok {
			dupOf[i] = j
			continue
		}
		first[k] = i
		switch {
		case closedErr != nil:
			results[i].Err = copyErr(closedErr)
		case rd.activeHere[r.PatientID]:
			results[i].Err = slotErr(booking.CodeAlreadyBooked, slotID, "the patient already holds a place in this slot")
		case rd.overlapping[r.PatientID]:
			results[i].Err = slotErr(booking.CodeOverlapping, slotID, "the patient has another appointment at an overlapping time")
		case rd.round != nil && rd.used[r.PatientID] >= rd.round.Quota:
			// One slot per batch, and a patient's later requests wait on
			// the first: the used count read is all the batch can add to.
			results[i].Err = booking.QuotaError(slotID, rd.round.Quota)
		default:
			if j, ok := pending[r.PatientID]; ok {
				samePatient[i] = j
				continue
			}
			pending[r.PatientID] = i
			eligible = append(eligible, i)
		}
	}

	// More takers than places: the slot's holds past their deadline give
	// their places back first (SPEC §6).
	free := slot.Capacity - slot.BookedCount
	reclaim := len(eligible) > free && len(rd.stale) > 0
	if reclaim {
		free += len(rd.stale)
	}
	g := min(len(eligible), max(free, 0))
	winners := eligible[:g]
	won := make(map[int]bool, g)
	for _, i := range winners {
		won[i] = true
	}
	for _, i := range eligible[g:] {
		results[i].Err = slotErr(booking.CodeSlotFull, slotID, "no place left in this slot")
	}
	for i, j := range samePatient {
		if won[j] {
			results[i].Err = slotErr(booking.CodeAlreadyBooked, slotID, "the patient already holds a place in this slot")
		} else {
			results[i].Err = slotErr(booking.CodeSlotFull, slotID, "no place left in this slot")
		}
	}

	if len(winners) > 0 {
		ns, err := s.take(ctx, tx, slot, rd.round, reqs, winners, rd, reclaim, now, results)
		if err != nil {
			return nil, false, err
		}
		if err := s.notify(ctx, tx, ns); err != nil {
			return nil, false, err
		}
		wrote = true
	}

	// A repeated (patient, key) in the batch gets its first request's
	// outcome, as if it were a retry arriving just after it.
	for i, j := range dupOf {
		switch {
		case results[j].Err != nil:
			results[i].Err = copyErr(results[j].Err)
		case reqs[i].Fingerprint != reqs[j].Fingerprint:
			results[i] = replayOrReused(results[j].Appointment, reqs[i])
		default:
			results[i] = booking.BookResult{Appointment: results[j].Appointment, Replayed: true}
		}
	}
	return results, wrote, nil
}

// bookReads is what Book's read pipeline found under the slot's lock.
type bookReads struct {
	slot  booking.Slot
	found bool
	// existing: the appointments already made with the batch's keys.
	existing map[idemKey]booking.Appointment
	// activeHere, overlapping: patients with an active appointment in this
	// slot, or in another slot overlapping it.
	activeHere, overlapping map[int64]bool
	// topQueue: the highest queue number in use; stale: the numbers of the
	// slot's holds past their deadline.
	topQueue int
	stale    []int
	// round is the slot's round (nil for an ordinary slot); used, the
	// batch's patients' allocations counted in it.
	round *booking.Round
	used  map[int64]int
}

// scanSlotRound reads sqlLockSlot's row: the slot and its round, if any.
func scanSlotRound(row pgx.Row) (booking.Slot, *booking.Round, error) {
	var (
		sl                       booking.Slot
		name, state              *string
		opens, closes, ts, te, c *time.Time
		quota                    *int
	)
	err := row.Scan(&sl.ID, &sl.DoctorID, &sl.ScheduleID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount,
		&sl.OpensAt, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &sl.RoundID,
		&name, &opens, &closes, &ts, &te, &quota, &state, &c)
	sl.StartAt, sl.EndAt, sl.OpensAt = sl.StartAt.UTC(), sl.EndAt.UTC(), sl.OpensAt.UTC()
	if err != nil || name == nil {
		return sl, nil, err
	}
	r := &booking.Round{ID: sl.RoundID, Name: *name, OpensAt: opens.UTC(), ClosesAt: closes.UTC(),
		TermStart: ts.UTC(), TermEnd: te.UTC(), Quota: *quota, State: *state, CreatedAt: c.UTC()}
	return sl, r, nil
}

// readBatch reads the answers of the read pipeline that queueReads queued.
func readBatch(br pgx.BatchResults, slotID int64) (rd bookReads, err error) {
	rd.slot, rd.round, err = scanSlotRound(br.QueryRow())
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = nil
	case err != nil:
		return
	default:
		rd.found = true
	}

	rd.existing = map[idemKey]booking.Appointment{}
	rows, err := br.Query()
	if err != nil {
		return
	}
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	if err != nil {
		return
	}
	for _, a := range as {
		rd.existing[idemKey{a.PatientID, a.IdempotencyKey}] = a
	}

	rd.activeHere, rd.overlapping = map[int64]bool{}, map[int64]bool{}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var patientID, otherSlot int64
	_, err = pgx.ForEachRow(rows, []any{&patientID, &otherSlot}, func() error {
		if otherSlot == slotID {
			rd.activeHere[patientID] = true
		} else {
			rd.overlapping[patientID] = true
		}
		return nil
	})
	if err != nil {
		return
	}

	if err = br.QueryRow().Scan(&rd.topQueue); err != nil {
		return
	}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var q int
	_, err = pgx.ForEachRow(rows, []any{&q}, func() error {
		rd.stale = append(rd.stale, q)
		return nil
	})
	if err != nil {
		return
	}
	rd.used = map[int64]int{}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var used int
	_, err = pgx.ForEachRow(rows, []any{&patientID, &used}, func() error {
		rd.used[patientID] = used
		return nil
	})
	return
}

// freeNumbers returns the g lowest free queue numbers of slot. Without gaps
// below the top number they follow it; otherwise (after cancels, expiries,
// or when reclaiming the stale holds' numbers) they are found among the
// numbers in use, read under the slot's lock.
func freeNumbers(ctx context.Context, tx pgx.Tx, slot booking.Slot, rd bookReads, reclaim bool, g int) ([]int32, error) {
	queue := make([]int32, 0, g)
	if !reclaim && rd.topQueue == slot.BookedCount && rd.topQueue+g <= slot.Capacity {
		for q := rd.topQueue + 1; len(queue) < g; q++ {
			queue = append(queue, int32(q))
		}
		return queue, nil
	}
	rows, _ := tx.Query(ctx, sqlTakenQueue, slot.ID)
	taken := map[int]bool{}
	var q int
	if _, err := pgx.ForEachRow(rows, []any{&q}, func() error { taken[q] = true; return nil }); err != nil {
		return nil, err
	}
	if reclaim {
		// The reclaimed holds' numbers are free again. The list is exact:
		// a hold changes state only under its slot's lock, which we hold.
		for _, q := range rd.stale {
			delete(taken, q)
		}
	}
	for q := 1; q <= slot.Capacity && len(queue) < g; q++ {
		if !taken[q] {
			queue = append(queue, int32(q))
		}
	}
	return queue, nil
}

// take gives places to the requests at winners (indexes into reqs), with
// the lowest free queue numbers, in one pipeline: the reclaim of the slot's
// expired holds when reclaim is set, then the conditional update with the
// inserts. It returns the notifications the change announces.
func (s *Store) take(ctx context.Context, tx pgx.Tx, slot booking.Slot, round *booking.Round, reqs []booking.BookRequest,
	winners []int, rd bookReads, reclaim bool, now time.Time, results []booking.BookResult) ([]booking.Notification, error) {
	g := len(winners)
	patients := make([]int64, g)
	keys := make([]string, g)
	prints := make([]string, g)
	queue, err := freeNumbers(ctx, tx, slot, rd, reclaim, g)
	if err != nil {
		return nil, err
	}
	if len(queue) < g {
		// The counter says there is room but the rows fill every number:
		// the counter is corrupt. Refuse rather than guess; reconciliation
		// repairs it.
		return nil, fmt.Errorf("postgres: slot %d: booked_count %d of %d but only %d free queue numbers",
			slot.ID, slot.BookedCount, slot.Capacity, len(queue))
	}
	for k, i := range winners {
		patients[k], keys[k], prints[k] = reqs[i].PatientID, reqs[i].IdempotencyKey, reqs[i].Fingerprint
	}
	status := booking.StatusBooked
	var hold *time.Time
	if slot.FeeCents > 0 {
		status = booking.StatusHeld
		t := now.Add(time.Duration(slot.HoldSeconds) * time.Second)
		hold = &t
	}

	b := &pgx.Batch{}
	if reclaim {
		b.Queue(sqlReclaim, slot.ID, now)
	}
	if s.racy {
		counter := slot.BookedCount + g
		if reclaim {
			counter -= len(rd.stale)
		}
		b.Queue(sqlTakeRacy, slot.ID, int32(counter), now, string(status), hold, patients, queue, keys, prints)
	} else {
		b.Queue(sqlTake, slot.ID, int32(g), now, string(status), hold, patients, queue, keys, prints)
	}
	if round != nil {
		// Last, after the conditional update: the round's quota. The
		// winners are distinct patients (a patient's later requests wait on
		// the first), so each counts 1.
		b.Queue(sqlQuotaTake, round.ID, patients, int32(round.Quota))
	}
	br := tx.SendBatch(ctx, b)
	ns, byQueue, err := readTake(br, reclaim)
	if err == nil && round != nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if reclaim && len(ns) != len(rd.stale) {
		return nil, fmt.Errorf("postgres: slot %d: reclaimed %d expired holds of the %d read under the lock", slot.ID, len(ns), len(rd.stale))
	}
	if len(byQueue) != g {
		return nil, fmt.Errorf("postgres: slot %d: the conditional update took no places although %d were free",
			slot.ID, slot.Capacity-slot.BookedCount+len(ns))
	}
	for k, i := range winners {
		a := byQueue[int(queue[k])]
		a.SlotID, a.DoctorID, a.PatientID, a.Status = slot.ID, slot.DoctorID, patients[k], status
		a.IdempotencyKey, a.Fingerprint, a.RoundID = keys[k], prints[k], slot.RoundID
		utcAppointment(&a)
		results[i] = booking.BookResult{Appointment: a}
		if status == booking.StatusBooked {
			ns = append(ns, booking.Notification{Kind: booking.NotifyConfirmation, AppointmentID: a.ID})
		}
	}
	return ns, nil
}

// readTake reads take's pipeline: the expired holds (as their expiry
// notices) and the new appointments by queue number.
func readTake(br pgx.BatchResults, reclaim bool) (ns []booking.Notification, byQueue map[int]booking.Appointment, err error) {
	if reclaim {
		rows, _ := br.Query()
		var id int64
		if _, err = pgx.ForEachRow(rows, []any{&id}, func() error {
			ns = append(ns, booking.Notification{Kind: booking.NotifyExpiry, AppointmentID: id})
			return nil
		}); err != nil {
			return
		}
	}
	rows, _ := br.Query()
	byQueue = map[int]booking.Appointment{}
	var a booking.Appointment
	_, err = pgx.ForEachRow(rows, []any{&a.ID, &a.QueueNumber, &a.StartAt, &a.EndAt, &a.HoldExpiresAt, &a.CreatedAt, &a.UpdatedAt},
		func() error {
			byQueue[a.QueueNumber] = a
			a.HoldExpiresAt = nil // a fresh pointer for the next row
			return nil
		})
	return
}
