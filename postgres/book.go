package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slotd/slotd/booking"
)

// apptColumns reads an appointment joined as a with its slot as s (for the
// doctor, which is the slot's resource).
const apptColumns = `a.id, a.slot_id, s.resource_id, a.patient_id, a.status, a.queue_no, a.start_at, a.end_at,
	a.hold_expires_at, a.created_at, a.updated_at, a.idempotency_key, a.fingerprint, COALESCE(a.round_id, 0), COALESCE(a.service_id, 0),
	a.walk_in, COALESCE(a.walk_in_reason, '')`

func scanAppointment(r pgx.Row, extra ...any) (booking.Appointment, error) {
	var a booking.Appointment
	err := r.Scan(append(apptScanTargets(&a), extra...)...)
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
		r.name, r.opens_at, r.closes_at, r.term_start, r.term_end, r.quota, r.state, r.created_at, r.lottery`
	// sqlQuotaUse reads the batch's patients' allocations counted in the
	// slot's round (nothing for an ordinary slot). A statement of its own
	// after the lock, so that it sees what the previous holder committed.
	sqlQuotaUse = `SELECT q.patient_id, q.used FROM slots s JOIN round_quotas q ON q.round_id = s.round_id
		WHERE s.id = $1 AND q.patient_id = ANY($2::bigint[])`
	// sqlTurns reads the batch's patients' selection times in the slot's
	// round, set by a lottery's draw (nothing for any other slot).
	sqlTurns = `SELECT g.patient_id, g.selection_at, g.selection_ends_at FROM slots s JOIN round_registrations g ON g.round_id = s.round_id
		WHERE s.id = $1 AND g.patient_id = ANY($2::bigint[]) AND g.selection_at IS NOT NULL`
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
	// (patient, Idempotency-Key) pairs, one probe of
	// appointments_patient_key_key per pair: the LIMIT (the key is unique)
	// keeps the subquery per pair, where as a join a plan cached while the
	// table was small hashed the pairs against a scan of every appointment.
	sqlByKeys = `SELECT ` + apptColumns + `
		FROM unnest($1::bigint[], $2::text[]) AS k(patient_id, idem_key),
		LATERAL (SELECT * FROM appointments a WHERE a.patient_id = k.patient_id AND a.idempotency_key = k.idem_key LIMIT 1) a
		JOIN slots s ON s.id = a.slot_id`
	// sqlActiveOverlapping finds which of the batch's patients hold an
	// active appointment whose time overlaps the slot: in the slot itself
	// (already booked) or in another slot (overlapping). Round allocations
	// are exempt from the overlap rule on both sides (the round's quota
	// governs them), as in appointments_no_overlap.
	//
	// Each patient's appointments are probed on their own (subqueries in
	// the select list, which the planner keeps per row) through a
	// patient-led index: "here" through appointments_patient_key_key (the
	// status is tested on the rows, so that no partial index of the slot's
	// applies), "elsewhere" through appointments_no_overlap ("slot_id + 0"
	// keeps the slot's indexes out). Written as one join, or with the slot
	// in an index condition, the planner — from statistics of when the
	// table was small: a fresh database at its first 7:00, or a plan cached
	// at a connection's sixth batch — scanned all the slot's (or all)
	// active appointments instead: 2.4–6 ms per batch at 10,000 places,
	// growing with them.
	sqlActiveOverlapping = `SELECT * FROM (
		SELECT p.id,
			coalesce((SELECT bool_or(a.status IN ` + booking.ActiveSQL + `) FROM appointments a
				WHERE a.patient_id = p.id AND a.slot_id = s.id), false) AS here,
			s.round_id IS NULL AND EXISTS (SELECT FROM appointments a WHERE a.patient_id = p.id AND a.slot_id + 0 <> s.id
				AND a.status IN ` + booking.ActiveSQL + ` AND a.round_id IS NULL AND a.start_at < s.end_at AND a.end_at > s.start_at) AS elsewhere
		FROM slots s, unnest($2::bigint[]) AS p(id) WHERE s.id = $1) x
		WHERE here OR elsewhere`
	// sqlPatientLoad reads what the slot's policy needs of the batch's
	// patients (booking.PatientLoad): active ordinary appointments in all
	// and on the slot's local day in its doctor's zone, and no-shows since
	// $3, through the partial indexes on active appointments and no-shows.
	// Each patient is a probe of its own (OFFSET 0 keeps the subqueries
	// apart): a generic plan made on an empty table joined patients by a
	// sequential scan, and took the slot's unique index by its second
	// column for the day's count (TestBatchReadsProbeWhateverTheStatistics).
	sqlPatientLoad = `SELECT p.id, NOT x.active, act.total::integer, act.day::integer, ns.n::integer, ns.last
		FROM unnest($2::bigint[]) AS p(id)
		LEFT JOIN LATERAL (
			SELECT date_trunc('day', s.start_at AT TIME ZONE r.timezone) AT TIME ZONE r.timezone AS from_at,
			       (date_trunc('day', s.start_at AT TIME ZONE r.timezone) + interval '1 day') AT TIME ZONE r.timezone AS to_at
			FROM slots s JOIN resources r ON r.id = s.resource_id WHERE s.id = $1) d ON true
		CROSS JOIN LATERAL (SELECT active FROM patients WHERE id = p.id OFFSET 0) x
		CROSS JOIN LATERAL (SELECT count(*) AS total, count(*) FILTER (WHERE a.start_at >= d.from_at AND a.start_at < d.to_at) AS day
			FROM appointments a WHERE a.patient_id = p.id AND a.status IN ` + booking.ActiveSQL + ` AND a.round_id IS NULL OFFSET 0) act
		CROSS JOIN LATERAL (SELECT count(*) AS n, max(a.start_at) AS last
			FROM appointments a WHERE a.patient_id = p.id AND a.status = ` + booking.StatusNoShowSQL + ` AND a.start_at >= $3 OFFSET 0) ns`
	// sqlWaiting reads the batch's patients' WAITING waitlist entries, each
	// patient's through waitlist_entries_patient (OFFSET 0 keeps the probe
	// per patient), with the slot's doctor's department and zone that
	// booking.EntryMatches needs: the entries a new place fulfils end in
	// the write pipeline.
	sqlWaiting = `SELECT ` + entryColumns + `, COALESCE(r.department_id, 0), r.timezone
		FROM slots s JOIN resources r ON r.id = s.resource_id, unnest($2::bigint[]) AS p(id),
		LATERAL (SELECT * FROM waitlist_entries w WHERE w.patient_id = p.id AND w.state = ` + booking.EntryWaitingSQL + ` OFFSET 0) w
		WHERE s.id = $1`
	// sqlFulfil ends the entries of booking.BookDecision.Fulfilled.
	sqlFulfil = `UPDATE waitlist_entries SET state = ` + booking.EntryFulfilledSQL + `, updated_at = $2 WHERE id = ANY($1) AND state = ` + booking.EntryWaitingSQL
	// sqlTopQueue is the highest queue number in use, read backwards from
	// appointments_slot_queue_active in O(log n): when it equals the slot's
	// counter no number below it is free, and the next places are simply
	// the numbers after it (the common case, and the rush's). Spelled as
	// ORDER BY … LIMIT 1, not max(): with the statistics of a slot that
	// filled since the last ANALYZE the planner aggregated the whole index
	// range instead (2.2 ms at 10,000 places).
	sqlTopQueue = `SELECT coalesce((SELECT queue_no FROM appointments
		WHERE slot_id = $1 AND status IN ` + booking.ActiveSQL + ` ORDER BY queue_no DESC LIMIT 1), 0)`
	// sqlSlotStaleHolds lists the slot's holds past their deadline (that Book
	// may reclaim), through appointments_slot_held. A waitlist offer is not
	// one (sqlNotOffer).
	sqlSlotStaleHolds = `SELECT id, patient_id, queue_no FROM appointments
		WHERE slot_id = $1 AND status = ` + booking.StatusHeldSQL + ` AND hold_expires_at <= $2` + sqlNotOffer
	// sqlNotOffer keeps the reclaim off a timed-out waitlist offer: the
	// expiry job ends it, so that its entry ends EXPIRED and the place
	// passes to the next entry before it returns to open booking
	// (booking/waitlist.go). Evaluated only for the slot's stale holds, a
	// probe of waitlist_entries_offer each (OFFSET 0 keeps it a subplan: as
	// an anti-join, plans made on an empty table read every offer per hold).
	sqlNotOffer = `
		  AND NOT EXISTS (SELECT 1 FROM waitlist_entries w WHERE w.appointment_id = appointments.id AND w.state = ` + booking.EntryOfferedSQL + ` OFFSET 0)`
	// sqlTakenIfHoles lists every queue number in use, but only when
	// numbers below the top may be free (after cancels or expiries: the
	// counter differs from the top number; or a stale hold may be
	// reclaimed), which is exactly when DecideBooking leaves Queue nil. It
	// is in the read pipeline so that the rare case costs no round trip
	// and the common one an index probe.
	sqlTakenIfHoles = `SELECT queue_no FROM appointments WHERE slot_id = $1 AND status IN ` + booking.ActiveSQL + `
		  AND ((SELECT booked_count FROM slots WHERE id = $1) <> (` + sqlTopQueue + `)
		    OR EXISTS (SELECT 1 FROM appointments WHERE slot_id = $1 AND status = ` + booking.StatusHeldSQL + ` AND hold_expires_at <= $2))
		ORDER BY queue_no`
	// sqlNewIDs draws the ids of the batch's new appointments before the
	// decision (as many as could win: the free places plus the reclaimable
	// holds), so that the notifications naming them are known before the
	// write pipeline is sent and go into it with the COMMIT. Unused ids
	// are gaps in the sequence, which nothing reads.
	sqlNewIDs = `SELECT nextval(pg_get_serial_sequence('appointments', 'id'))
		FROM generate_series(1, LEAST($2::integer,
			(SELECT capacity - booked_count FROM slots WHERE id = $1)
			+ (SELECT count(*) FROM appointments WHERE slot_id = $1 AND status = ` + booking.StatusHeldSQL + ` AND hold_expires_at <= $3)::integer))`

	// sqlTake is the decision and the inserts in one statement: the
	// conditional update takes g places or matches no row, and then the
	// INSERT ... SELECT FROM u inserts nothing, which Book reports as an
	// internal error.
	sqlTake = `WITH u AS (
			UPDATE slots SET booked_count = booked_count + $2::integer
			WHERE id = $1 AND status = ` + booking.SlotOpenSQL + ` AND opens_at <= $3 AND start_at > $3
			  AND booked_count + $2::integer <= capacity
			RETURNING id, start_at, end_at, round_id)
		` + sqlInsertFromU
	// sqlTakeRacy is the racy knob's absolute, unconditional write of the
	// counter read earlier without a lock.
	sqlTakeRacy = `WITH u AS (
			UPDATE slots SET booked_count = $2::integer WHERE id = $1
			RETURNING id, start_at, end_at, round_id)
		` + sqlInsertFromU
	sqlInsertFromU = `INSERT INTO appointments (id, slot_id, patient_id, status, queue_no, start_at, end_at,
			idempotency_key, fingerprint, hold_expires_at, created_at, updated_at, round_id)
		OVERRIDING SYSTEM VALUE
		SELECT r.id, u.id, r.patient_id, $4::text, r.queue_no, u.start_at, u.end_at, r.idem_key, r.fingerprint,
			$5::timestamptz, $3::timestamptz, $3::timestamptz, u.round_id
		FROM u, unnest($6::bigint[], $7::integer[], $8::text[], $9::text[], $10::bigint[])
			AS r(patient_id, queue_no, idem_key, fingerprint, id)`
)

// sqlReclaim expires the slot's holds past their deadline (waitlist offers
// aside, sqlNotOffer) by a conditional update (HELD is the only source of
// EXPIRED) and releases their places, under the slot's lock that Book holds. Nothing else can hold those
// appointments' locks: they change only under their slot's lock.
var sqlReclaim = `WITH x AS (
		UPDATE appointments SET status = ` + booking.StatusExpiredSQL + `, updated_at = $2
		WHERE slot_id = $1 AND status IN ` + expireFrom + ` AND hold_expires_at <= $2` + sqlNotOffer + `
		RETURNING id),
	d AS (
		UPDATE slots SET booked_count = booked_count - (SELECT count(*) FROM x)::integer WHERE id = $1)
	SELECT id FROM x`

// Book decides reqs, all for slotID, in one transaction and answers them in
// order, as booking.DecideBooking decides (docs/contracts/store.md). When more requests are eligible than
// places are free, the slot's holds past their deadline are expired first,
// in the same transaction. The enqueuer (Options.Enqueue) gets a confirmation
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
	return booking.DecideAlone(reqs, func(r booking.BookRequest) (booking.BookResult, error) {
		return s.bookOne(ctx, slotID, r, now)
	})
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
		case booking.ConPatientKey:
			// Another transaction committed this key meanwhile: answer as
			// a retry of it.
			a, lerr := scanAppointment(s.pool.QueryRow(ctx,
				`SELECT `+apptColumns+` FROM appointments a JOIN slots s ON s.id = a.slot_id
				 WHERE a.patient_id = $1 AND a.idempotency_key = $2`, r.PatientID, r.IdempotencyKey))
			if lerr != nil {
				return booking.BookResult{}, translate(lerr, "")
			}
			return booking.ReplayOf(a, r), nil
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

// batchSender is what a booking batch's pipelines are sent on: a pooled
// connection holding the transaction that its own BEGIN and COMMIT
// delimit, or a pgx.Tx (DecidePending's, or Book's when only a pgx.Tx
// enqueuer is installed).
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

const (
	sqlBegin        = `BEGIN ISOLATION LEVEL READ COMMITTED`
	sqlGenericPlans = `SET LOCAL plan_cache_mode = force_generic_plan`
)

// release gives c back to the pool after ROLLBACK when a pipeline left it
// inside a transaction (one of its statements failed, skipping its
// COMMIT): the pool destroys a connection left so, never reuses it.
func release(ctx context.Context, c *pgxpool.Conn) {
	if c.Conn().PgConn().TxStatus() != 'I' {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_, _ = c.Exec(rctx, "ROLLBACK")
		cancel()
	}
	c.Release()
}

// queryGeneric runs q in a transaction of its own under
// force_generic_plan, in one round trip, and hands its rows to each. A
// statement taking an array of keys (a notification batch's) is otherwise
// planned afresh at each call: the planner prefers a plan made for each
// array's length to the generic one, which it costs at ten elements. Such
// a statement probes each key's row on its own (a LATERAL subquery by the
// row's unique key): a generic plan made on a nearly empty table, as a new
// database's first batch makes it and the connection then keeps, would
// otherwise scan the table.
func (s *Store) queryGeneric(ctx context.Context, each func(pgx.Rows) error, q string, args ...any) error {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer release(ctx, c)
	b := &pgx.Batch{}
	b.Queue(sqlBegin)
	b.Queue(sqlGenericPlans)
	b.Queue(q, args...)
	b.Queue("COMMIT")
	br := c.SendBatch(ctx, b)
	defer br.Close()
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	if err := eachRow(br, each); err != nil {
		return err
	}
	_, err = br.Exec() // COMMIT
	return err
}

// queryGenericIn is queryGeneric inside tx, in one round trip: the
// setting is back to its default for the rest of tx.
func queryGenericIn(ctx context.Context, tx pgx.Tx, each func(pgx.Rows) error, q string, args ...any) error {
	b := &pgx.Batch{}
	b.Queue(sqlGenericPlans)
	b.Queue(q, args...)
	b.Queue(`SET LOCAL plan_cache_mode = DEFAULT`)
	br := tx.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return err
	}
	if err := eachRow(br, each); err != nil {
		return err
	}
	_, err := br.Exec()
	return err
}

// eachRow hands the rows of br's next statement to each.
func eachRow(br pgx.BatchResults, each func(pgx.Rows) error) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// bookBatch runs the one-transaction decision. It returns a driver error
// (untranslated, so that Book can tell constraint violations apart) when
// any statement fails; the transaction is then rolled back.
//
// Round trips: two. One pipeline begins the transaction, locks the slot and
// makes every read (and draws the new appointments' ids); the other writes
// the decision (reclaim, counter, rows, quota, fulfilled waitlist
// entries), the notification job row (Options.OutboxStatement), the domain
// events (Options.Events) and COMMIT. A statement that fails makes the server
// skip the rest of its pipeline, COMMIT included, so nothing is committed
// half. A batch that writes nothing is answered before its ROLLBACK, which
// only releases the lock. With an enqueuer that needs a pgx.Tx
// (Options.Enqueue without Options.OutboxStatement) it takes two more: BEGIN and
// the enqueuer's own.
func (s *Store) bookBatch(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	var tx pgx.Tx // set only for a pgx.Tx enqueuer
	var on batchSender = c
	b := &pgx.Batch{}
	if s.enqueue != nil && s.outboxStmt == nil {
		if tx, err = c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}); err != nil {
			c.Release()
			return nil, err
		}
		on = tx
	} else {
		b.Queue(sqlBegin)
	}
	done := func() { release(ctx, c) }
	s.queueReads(b, slotID, reqs, now)
	br := on.SendBatch(ctx, b)
	if tx == nil {
		_, err = br.Exec() // BEGIN
	}
	var rd booking.BookReads
	var got pipelineReads
	if err == nil {
		rd, got, err = readBatch(br)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.readEligibility(ctx, on, &rd, reqs)
	}
	if err != nil {
		done()
		return nil, err
	}
	d := booking.DecideBooking(reqs, rd, now)
	if len(d.Winners) == 0 {
		// Nothing to write: answer now; the rollback only ends the
		// transaction and releases the slot's lock.
		results, _ := d.Finish(nil)
		go done()
		return results, nil
	}
	defer done()
	b, ids, ns, results, err := s.queueTake(rd, got, d, now)
	if err != nil {
		return nil, err
	}
	// Without a pgx.Tx the messages' job row goes in the write pipeline
	// too (with one, notify writes it in the transaction). The domain
	// events are the audit rows.
	var outbox bool
	if tx == nil {
		if len(ns) > 0 && s.outboxStmt != nil {
			q, args, err := s.outboxStmt(ns)
			if err != nil {
				return nil, fmt.Errorf("postgres: enqueue notifications: %w", err)
			}
			b.Queue(q, args...)
			outbox = true
		}
		b.Queue("COMMIT")
	}
	br = on.SendBatch(ctx, b)
	err = readTake(br, rd, d, len(ids), outbox, tx == nil)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if tx != nil {
		if err := s.notify(ctx, tx, ns); err != nil {
			return nil, err
		}
		if err := tx.Commit(ctx); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// decideInTx runs the decision of a batch for slotID inside tx, which the
// caller commits (DecidePending: many batches, one transaction). Like
// bookBatch it returns driver errors untranslated; tx is then unusable.
func (s *Store) decideInTx(ctx context.Context, tx pgx.Tx, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	b := &pgx.Batch{}
	s.queueReads(b, slotID, reqs, now)
	br := tx.SendBatch(ctx, b)
	rd, got, err := readBatch(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.readEligibility(ctx, tx, &rd, reqs)
	}
	if err != nil {
		return nil, err
	}
	d := booking.DecideBooking(reqs, rd, now)
	if len(d.Winners) == 0 {
		results, _ := d.Finish(nil)
		return results, nil
	}
	b, ids, ns, results, err := s.queueTake(rd, got, d, now)
	if err != nil {
		return nil, err
	}
	br = tx.SendBatch(ctx, b)
	err = readTake(br, rd, d, len(ids), false, false)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := s.notify(ctx, tx, ns); err != nil {
		return nil, err
	}
	return results, nil
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
	// Each statement is planned once per connection, not per batch: with
	// the one or two requests of a clinic's batches the planner judged
	// the generic plan dearer than planning each time, which cost more
	// than the reads (0.9 ms for sqlPatientLoad alone). The reads are
	// written to stay probes under a generic plan
	// (TestBatchReadsProbeWhateverTheStatistics).
	b.Queue(sqlGenericPlans)
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
	b.Queue(sqlTurns, slotID, patients)
	b.Queue(sqlBookPolicy, slotID)
	b.Queue(sqlPatientLoad, slotID, patients, now.Add(-booking.NoShowWindow))
	b.Queue(sqlWaiting, slotID, patients)
	b.Queue(sqlTakenIfHoles, slotID, now)
	b.Queue(sqlNewIDs, slotID, int32(len(reqs)), now)
}

// scanSlotRound reads sqlLockSlot's row: the slot and its round, if any.
func scanSlotRound(row pgx.Row) (booking.Slot, *booking.Round, error) {
	var (
		sl                       booking.Slot
		name, state              *string
		opens, closes, ts, te, c *time.Time
		quota                    *int
		lottery                  *bool
	)
	err := row.Scan(&sl.ID, &sl.DoctorID, &sl.ScheduleID, &sl.StartAt, &sl.EndAt, &sl.Capacity, &sl.BookedCount,
		&sl.OpensAt, &sl.Status, &sl.FeeCents, &sl.HoldSeconds, &sl.RoundID,
		&name, &opens, &closes, &ts, &te, &quota, &state, &c, &lottery)
	sl.StartAt, sl.EndAt, sl.OpensAt = sl.StartAt.UTC(), sl.EndAt.UTC(), sl.OpensAt.UTC()
	if err != nil || name == nil {
		return sl, nil, err
	}
	r := &booking.Round{ID: sl.RoundID, Name: *name, OpensAt: opens.UTC(), ClosesAt: closes.UTC(),
		TermStart: ts.UTC(), TermEnd: te.UTC(), Quota: *quota, State: *state, CreatedAt: c.UTC()}
	if lottery != nil && *lottery {
		// The decision needs to know only that there is a lottery.
		r.Lottery = &booking.Lottery{}
	}
	return sl, r, nil
}

// readBatch reads the answers of the read pipeline that queueReads queued.
// A patient that does not exist is left to appointments_patient_id_fkey:
// reading for it would cost every batch a statement.
func readBatch(br pgx.BatchResults) (rd booking.BookReads, got pipelineReads, err error) {
	if _, err = br.Exec(); err != nil { // sqlGenericPlans
		return
	}
	rd.Slot, rd.Round, err = scanSlotRound(br.QueryRow())
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		err = nil
	case err != nil:
		return
	default:
		rd.Found = true
	}

	rd.Existing = map[booking.PatientKey]booking.Appointment{}
	rows, err := br.Query()
	if err != nil {
		return
	}
	as, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	if err != nil {
		return
	}
	for _, a := range as {
		rd.Existing[booking.PatientKey{PatientID: a.PatientID, Key: a.IdempotencyKey}] = a
	}

	rd.ActiveHere, rd.Overlapping = map[int64]bool{}, map[int64]bool{}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var patientID int64
	var here, elsewhere bool
	_, err = pgx.ForEachRow(rows, []any{&patientID, &here, &elsewhere}, func() error {
		if here {
			rd.ActiveHere[patientID] = true
		}
		if elsewhere {
			rd.Overlapping[patientID] = true
		}
		return nil
	})
	if err != nil {
		return
	}

	if err = br.QueryRow().Scan(&rd.TopQueue); err != nil {
		return
	}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var h booking.StaleHold
	_, err = pgx.ForEachRow(rows, []any{&h.ID, &h.PatientID, &h.QueueNumber}, func() error {
		rd.Stale = append(rd.Stale, h)
		return nil
	})
	if err != nil {
		return
	}
	rd.Used = map[int64]int{}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var used int
	_, err = pgx.ForEachRow(rows, []any{&patientID, &used}, func() error {
		rd.Used[patientID] = used
		return nil
	})
	if err != nil {
		return
	}
	rd.Turns = map[int64]booking.Turn{}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var turn time.Time
	var ends *time.Time
	_, err = pgx.ForEachRow(rows, []any{&patientID, &turn, &ends}, func() error {
		rd.Turns[patientID] = booking.Turn{From: turn.UTC(), Until: utcOrNil(ends)}
		return nil
	})
	if err != nil {
		return
	}
	if err = scanBookPolicy(br.QueryRow(), &rd); err != nil {
		return
	}
	rd.Load = map[int64]booking.PatientLoad{}
	rows, err = br.Query()
	if err != nil {
		return
	}
	var l booking.PatientLoad
	var last *time.Time
	_, err = pgx.ForEachRow(rows, []any{&patientID, &l.Inactive, &l.Active, &l.SameDay, &l.NoShows, &last}, func() error {
		l.LastNoShow = time.Time{}
		if last != nil {
			l.LastNoShow = last.UTC()
		}
		rd.Load[patientID] = l
		return nil
	})
	if err != nil {
		return
	}
	rows, err = br.Query()
	if err != nil {
		return
	}
	rd.Waiting, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		return scanEntry(r, &rd.Doctor.DepartmentID, &rd.Doctor.TimeZone)
	})
	if err != nil {
		return
	}
	rd.Doctor.ID = rd.Slot.DoctorID
	rows, _ = br.Query()
	if got.taken, err = pgx.CollectRows(rows, pgx.RowTo[int]); err != nil {
		return
	}
	rows, _ = br.Query()
	got.ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	return
}

// pipelineReads is what the read pipeline found besides booking.BookReads:
// the queue numbers in use when some below the top may be free (else
// nothing), and the ids drawn for the new appointments.
type pipelineReads struct {
	taken []int
	ids   []int64
}

// queueTake queues decision d's writes in a new batch: the reclaim of the
// slot's expired holds when d says so, then the conditional update with
// the inserts, the round's quota, the end of the waiting entries the new
// places fulfil and the audit rows. It returns the batch, the new
// appointments' ids (in the order of d.Winners), and the answers and
// notifications they make.
func (s *Store) queueTake(rd booking.BookReads, got pipelineReads, d *booking.BookDecision, now time.Time) (
	b *pgx.Batch, ids []int64, ns []booking.Notification, results []booking.BookResult, err error) {
	slot, round := rd.Slot, rd.Round
	if d.Queue == nil {
		if err := d.QueueFrom(slices.Values(got.taken)); err != nil {
			return nil, nil, nil, nil, err
		}
	}
	g := len(d.Winners)
	if len(got.ids) < g {
		return nil, nil, nil, nil, fmt.Errorf("postgres: slot %d: %d ids drawn for %d new appointments", slot.ID, len(got.ids), g)
	}
	ids = got.ids[:g]
	patients := make([]int64, g)
	keys := make([]string, g)
	prints := make([]string, g)
	queue := make([]int32, g)
	for k := range d.Winners {
		a := d.Appointment(k, 0)
		patients[k], keys[k], prints[k], queue[k] = a.PatientID, a.IdempotencyKey, a.Fingerprint, int32(a.QueueNumber)
	}
	b = &pgx.Batch{}
	if d.Reclaim {
		b.Queue(sqlReclaim, slot.ID, now)
	}
	if s.racy {
		counter := slot.BookedCount + g
		if d.Reclaim {
			counter -= len(d.Stale)
		}
		b.Queue(sqlTakeRacy, slot.ID, int32(counter), now, string(d.Status), d.HoldExpiresAt, patients, queue, keys, prints, ids)
	} else {
		b.Queue(sqlTake, slot.ID, int32(g), now, string(d.Status), d.HoldExpiresAt, patients, queue, keys, prints, ids)
	}
	if round != nil {
		// Last, after the conditional update: the round's quota. The
		// winners are distinct patients, so each counts 1.
		b.Queue(sqlQuotaTake, round.ID, patients, int32(round.Quota))
	}
	if len(d.Fulfilled) > 0 {
		b.Queue(sqlFulfil, d.Fulfilled, now)
	}
	if uses := d.InvitationsUsed(ids); len(uses) > 0 {
		s.queueUseInvitations(b, uses, now)
	}
	results, ns = d.Finish(ids)
	// The audit rows go in the same pipeline: one statement, after the
	// rows they describe.
	queueAudit(b, d.AuditEntries(results)...)
	return b, ids, ns, results, nil
}

// readTake reads the write pipeline that queueTake queued: the reclaim, the
// conditional update, the quota's statement (rd.Round), the waiting
// entries' (d.Fulfilled), the invitations' (d.InvitationCount), the audit
// rows, then the notification statement when outbox and COMMIT when
// commit.
// It checks that the reclaim expired the holds read under the lock, that
// the conditional update took the places, and that COMMIT committed.
func readTake(br pgx.BatchResults, rd booking.BookReads, d *booking.BookDecision, g int, outbox, commit bool) error {
	slot := rd.Slot
	reclaimed := 0
	if d.Reclaim {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		reclaimed = int(tag.RowsAffected())
		if reclaimed != len(d.Stale) {
			return fmt.Errorf("postgres: slot %d: reclaimed %d expired holds of the %d read under the lock", slot.ID, reclaimed, len(d.Stale))
		}
	}
	tag, err := br.Exec()
	if err != nil {
		return err
	}
	if int(tag.RowsAffected()) != g {
		return fmt.Errorf("postgres: slot %d: the conditional update took no places although %d were free",
			slot.ID, slot.Capacity-slot.BookedCount+reclaimed)
	}
	if rd.Round != nil {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	if len(d.Fulfilled) > 0 {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("postgres: fulfil waitlist entries: %w", err)
		}
	}
	if n := d.InvitationCount(); n > 0 {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		if int(tag.RowsAffected()) != n {
			return fmt.Errorf("postgres: slot %d: %d of the %d invitations locked unused were used", slot.ID, tag.RowsAffected(), n)
		}
	}
	if _, err := br.Exec(); err != nil { // the audit rows
		return fmt.Errorf("postgres: audit: %w", err)
	}
	if outbox {
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("postgres: enqueue notifications: %w", err)
		}
	}
	if commit {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		if tag.String() != "COMMIT" {
			return fmt.Errorf("postgres: slot %d: COMMIT answered %q", slot.ID, tag.String())
		}
	}
	return nil
}
