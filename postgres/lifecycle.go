package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// Lock order. Every transaction that changes an appointment's state locks
// the appointment's slot first and the appointment second (Book, Cancel,
// ConfirmPayment, Transition, Suspend, the repair of Reconcile), so that two
// of them never wait for each other in opposite orders. ExpireHolds is the
// exception that proves the rule: it locks holds and their slots with SKIP
// LOCKED and so never waits at all.

// notify hands ns to the enqueuer inside tx; nothing to announce, or no
// enqueuer, costs no round trip. (The domain events need no writing: they
// are the audit entries, events.go.)
func (s *Store) notify(ctx context.Context, tx pgx.Tx, ns []booking.Notification) error {
	if s.enqueue == nil || len(ns) == 0 {
		return nil
	}
	if err := s.enqueue(ctx, tx, ns); err != nil {
		return fmt.Errorf("postgres: enqueue notifications: %w", err)
	}
	return nil
}

// inTx runs fn in a READ COMMITTED transaction and commits it when fn
// succeeds. Errors are returned untranslated.
func (s *Store) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return err
	}
	defer rollback(ctx, tx)
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// rollback ends tx if it is still open (after Commit it is a no-op), on a
// context of its own since ctx may be what failed. pgx closes a connection
// whose rollback fails, so the pool never hands out one left in a
// transaction.
func rollback(ctx context.Context, tx pgx.Tx) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = tx.Rollback(rctx)
}

var (
	// cancelFrom, expireFrom: the states CANCELLED and EXPIRED are reached from.
	cancelFrom = booking.SQLList(booking.Sources(booking.StatusCancelled))
	expireFrom = booking.SQLList(booking.Sources(booking.StatusExpired))
)

// --- appointment locking and single transitions -----------------------------

const (
	// sqlLockApptSlot locks an appointment's slot (the first lock of the
	// lock order) and reads the slot's fee.
	sqlLockApptSlot = `SELECT s.fee_cents FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.id = $1 FOR UPDATE OF s`
	// sqlApptForUpdate reads and locks the appointment. Sent after
	// sqlLockApptSlot, it is a statement of its own and so, under READ
	// COMMITTED, sees everything committed before the slot's lock was granted.
	sqlApptForUpdate = `SELECT ` + apptColumns + ` FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.id = $1 FOR UPDATE OF a`
	// sqlTransition performs one transition as a conditional update and, when
	// $5, releases the place; it reports the rows changed by each.
	sqlTransition = `WITH x AS (
			UPDATE appointments SET status = $3, updated_at = $2 WHERE id = $1 AND status = $4
			RETURNING slot_id),
		d AS (
			UPDATE slots SET booked_count = booked_count - 1 FROM x WHERE slots.id = x.slot_id AND $5::boolean
			RETURNING slots.id)
		SELECT (SELECT count(*) FROM x), (SELECT count(*) FROM d)`
)

// lockAppointment locks an appointment and its slot in the lock order, in
// one round trip, and returns the appointment and the slot's fee. A
// missing appointment is found == false.
func lockAppointment(ctx context.Context, tx pgx.Tx, id int64, extra func(*pgx.Batch), readExtra func(pgx.BatchResults) error) (a booking.Appointment, fee int64, found bool, err error) {
	b := &pgx.Batch{}
	if extra != nil {
		extra(b)
	}
	b.Queue(sqlLockApptSlot, id)
	b.Queue(sqlApptForUpdate, id)
	br := tx.SendBatch(ctx, b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	if readExtra != nil {
		if err = readExtra(br); err != nil {
			return
		}
	}
	switch err = br.QueryRow().Scan(&fee); {
	case errors.Is(err, pgx.ErrNoRows):
		// No such appointment; Close reads the empty answer of the next
		// statement.
		return a, 0, false, nil
	case err != nil:
		return
	}
	a, err = scanAppointment(br.QueryRow())
	if errors.Is(err, pgx.ErrNoRows) {
		// Deleted between the statements: appointments are never deleted,
		// but answer as missing rather than fail.
		return a, fee, false, nil
	}
	return a, fee, err == nil, err
}

// transition moves the locked appointment a to `to` by a conditional update
// on its current state, releasing its place when it leaves an active state
// for an inactive one, once, in the same statement.
func transition(ctx context.Context, tx pgx.Tx, a *booking.Appointment, to booking.Status, now time.Time, action string) error {
	if !booking.CanTransition(a.Status, to) {
		return fmt.Errorf("postgres: appointment %d: %s -> %s is not in the transition table", a.ID, a.Status, to)
	}
	release := a.Status.Active() && !to.Active()
	var changed, released int
	if err := tx.QueryRow(ctx, sqlTransition, a.ID, now, string(to), string(a.Status), release).Scan(&changed, &released); err != nil {
		return err
	}
	if changed != 1 || (release && released != 1) {
		// The rows are locked, so the update cannot miss: a bug.
		return fmt.Errorf("postgres: appointment %d: %s -> %s changed %d rows and released %d places", a.ID, a.Status, to, changed, released)
	}
	from := a.Status
	a.Status, a.UpdatedAt = to, now
	return writeAudit(ctx, tx, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: action, From: from, Appointment: *a}))
}

// --- payments -----------------------------------------------------------------

const (
	paymentColumns    = `trade_no, appointment_id, amount_cents, received_at, outcome, COALESCE(reason, '')`
	sqlPaymentByTrade = `SELECT ` + paymentColumns + ` FROM payments WHERE trade_no = $1`
	sqlInsertPayment  = `INSERT INTO payments (trade_no, appointment_id, amount_cents, outcome, reason, received_at)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6) RETURNING id`
	// sqlInsertConflict keeps a conflicting callback once (payment_conflicts_key).
	sqlInsertConflict = `INSERT INTO payment_conflicts (trade_no, appointment_id, amount_cents, received_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (trade_no, appointment_id, amount_cents) DO NOTHING`
)

func scanPayment(r pgx.Row) (booking.Payment, error) {
	var p booking.Payment
	err := r.Scan(&p.TradeNo, &p.AppointmentID, &p.AmountCents, &p.ReceivedAt, &p.Outcome, &p.Reason)
	p.ReceivedAt = p.ReceivedAt.UTC()
	return p, err
}

// ConfirmPayment records a provider's payment for a HELD appointment in one
// transaction and books the appointment when its hold is still running and
// the amount is the slot's fee. A known trade number changes nothing and
// answers Duplicate. A payment that cannot be applied is recorded as
// needing a refund and answered with the result and CodePaymentRejected; a
// hold whose deadline has passed is expired on the way, so a payment never
// wins against a passed deadline. See docs/contracts/lifecycle.md.
func (s *Store) ConfirmPayment(ctx context.Context, p booking.Payment, now time.Time) (booking.PaymentResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	if p.ReceivedAt.IsZero() {
		p.ReceivedAt = now
	}
	p.ReceivedAt = p.ReceivedAt.UTC().Truncate(time.Microsecond)
	p.Outcome, p.Reason = "", ""
	for attempt := 1; ; attempt++ {
		res, rejected, err := s.confirmPayment(ctx, p, now)
		// Two deliveries of one callback at once: the later insert waits for
		// the earlier and then violates the trade number's uniqueness. Run
		// again, and it answers as the duplicate it is.
		if constraintOf(err) == booking.ConPaymentTrade && attempt < 3 {
			continue
		}
		if err != nil {
			return booking.PaymentResult{}, translate(err, "")
		}
		return res, rejected
	}
}

// confirmPayment is one attempt of ConfirmPayment: the reads, the decision
// (booking.DecidePayment) and its writes in one transaction. rejected is
// the answer of a payment recorded but not applied, or of a conflict
// recorded for reconciliation (the transaction committed); err is a
// failure (nothing committed).
func (s *Store) confirmPayment(ctx context.Context, p booking.Payment, now time.Time) (res booking.PaymentResult, rejected, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var recorded *booking.Payment
		a, fee, found, err := lockAppointment(ctx, tx, p.AppointmentID,
			func(b *pgx.Batch) { b.Queue(sqlPaymentByTrade, p.TradeNo) },
			func(br pgx.BatchResults) error {
				r, err := scanPayment(br.QueryRow())
				if errors.Is(err, pgx.ErrNoRows) {
					return nil
				}
				recorded = &r
				return err
			})
		if err != nil {
			return err
		}
		appt := &a
		if !found {
			appt = nil
		}
		d, err := booking.DecidePayment(p, booking.PaymentReads{Recorded: recorded, Appointment: appt, FeeCents: fee}, now)
		switch {
		case err != nil:
			return err
		case d.Duplicate:
			res = booking.PaymentResult{Payment: *recorded, Appointment: a, Duplicate: true}
			return nil
		case d.Conflict:
			if _, err := tx.Exec(ctx, sqlInsertConflict, p.TradeNo, p.AppointmentID, p.AmountCents, p.ReceivedAt); err != nil {
				return err
			}
			res, rejected = booking.PaymentResult{Payment: *recorded}, d.Err
			return nil
		}
		var ns []booking.Notification
		if d.To != "" {
			if err := transition(ctx, tx, &a, d.To, now, "payment"); err != nil {
				return err
			}
			ns = append(ns, booking.Notification{Kind: d.Notify, AppointmentID: a.ID})
		}
		r := d.Record
		var pid int64
		if err := tx.QueryRow(ctx, sqlInsertPayment, r.TradeNo, r.AppointmentID, r.AmountCents, r.Outcome, r.Reason, r.ReceivedAt).Scan(&pid); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.Audit(ctx, now, booking.AuditChange{Entity: booking.EntityPayment, ID: pid, Action: "record",
			After: map[string]any{"appointmentId": r.AppointmentID, "outcome": r.Outcome}})); err != nil {
			return err
		}
		if d.RefundReason != "" {
			ref := booking.NewRefund(pid, r.TradeNo, r.AppointmentID, booking.RefundCase{Paid: r.AmountCents, Reason: d.RefundReason, At: now})
			if err := s.writeRefunds(ctx, tx, []booking.Refund{ref}, now); err != nil {
				return err
			}
		}
		if err := s.notify(ctx, tx, ns); err != nil {
			return err
		}
		res = booking.PaymentResult{Payment: r, Appointment: a}
		if d.Err != nil {
			rejected = d.Err
		}
		return nil
	})
	return res, rejected, err
}

// --- hold expiry ----------------------------------------------------------------

// sqlExpireHolds is one pass of the expiry job in one statement: pick the
// oldest holds past their deadline, locking each with its slot and skipping
// those another transaction holds (another instance's pass, or a booking or
// payment on that slot, which then deals with it); expire them by a
// conditional update; and release their places, one counter update per
// slot. It never waits for a lock, so it cannot deadlock with the
// slot-first lock order of everything else.
var sqlExpireHolds = `WITH c AS MATERIALIZED (
		SELECT a.id FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.status = ` + booking.StatusHeldSQL + ` AND a.hold_expires_at <= $1
		ORDER BY a.hold_expires_at, a.id
		LIMIT $2
		FOR UPDATE OF a, s SKIP LOCKED),
	x AS (
		UPDATE appointments a SET status = ` + booking.StatusExpiredSQL + `, updated_at = $1 FROM c
		WHERE a.id = c.id AND a.status IN ` + expireFrom + `
		RETURNING a.*),
	d AS (
		UPDATE slots s SET booked_count = s.booked_count - g.n
		FROM (SELECT slot_id, count(*)::integer AS n FROM x GROUP BY slot_id) g
		WHERE s.id = g.slot_id
		RETURNING s.id, s.resource_id)
	SELECT ` + apptColumns + ` FROM x a JOIN d s ON s.id = a.slot_id ORDER BY a.hold_expires_at, a.id`

// ExpireHolds expires up to limit HELD appointments whose deadline is at or
// before now, oldest deadline first, releasing each place once, and
// applies what booking.DecideExpiry says the expiries trigger (audit,
// notices, the waiting list), in one transaction. Several processes may run it
// at once: each takes holds the others have not locked.
func (s *Store) ExpireHolds(ctx context.Context, now time.Time, limit int) ([]booking.Appointment, error) {
	if limit <= 0 {
		return []booking.Appointment{}, nil // nothing this pass, as on SQLite
	}
	now = now.UTC().Truncate(time.Microsecond)
	var out []booking.Appointment
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, sqlExpireHolds, now, limit)
		var err error
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
		if err != nil {
			return err
		}
		x := booking.DecideExpiry(booking.ActorOf(ctx), out, now)
		if err := writeAudit(ctx, tx, x.Audit...); err != nil {
			return err
		}
		if err := s.release(ctx, tx, x.Release, now); err != nil {
			return err
		}
		return s.notify(ctx, tx, x.Notify)
	})
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// --- staff transitions ------------------------------------------------------------

// Transition moves an appointment to COMPLETED or NO_SHOW for staff, by the
// transition table (from BOOKED), releasing its place. Repeating it returns
// the appointment unchanged; another move the table does not allow is
// CodeInvalidTransition. It announces nothing.
func (s *Store) Transition(ctx context.Context, appointmentID int64, to booking.Status, now time.Time) (booking.Appointment, error) {
	if err := booking.StaffTarget(to); err != nil {
		return booking.Appointment{}, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	var out booking.Appointment
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		a, _, found, err := lockAppointment(ctx, tx, appointmentID, nil, nil)
		switch {
		case err != nil:
			return err
		case !found:
			return booking.NotFound("appointment")
		}
		out = a
		if noop, err := booking.StaffTransition(a.Status, to, a.StartAt, now); noop || err != nil {
			return err
		}
		if err := transition(ctx, tx, &a, to, now, strings.ToLower(string(to))); err != nil {
			return err
		}
		out = a
		return nil
	})
	if err != nil {
		return booking.Appointment{}, translate(err, "")
	}
	return out, nil
}

// CheckIn checks a patient in (booking.DecideCheckIn decides, under the
// clinic's policy read in the same transaction, with the appointment's
// row and slot locked): BOOKED becomes ARRIVED, keeping its place, by a
// conditional update; an appointment already ARRIVED is answered as it is,
// with repeat set. See booking.CheckInRequest.
func (s *Store) CheckIn(ctx context.Context, r booking.CheckInRequest, now time.Time) (a booking.Appointment, repeat bool, err error) {
	now = now.UTC().Truncate(time.Microsecond)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		got, _, found, err := lockAppointment(ctx, tx, r.AppointmentID, nil, nil)
		switch {
		case err != nil:
			return err
		case !found:
			return booking.NotFound("appointment")
		}
		var p booking.Policy
		if err := tx.QueryRow(ctx, `SELECT `+policyColumns+` FROM clinic_policy WHERE id = 1`).Scan(policyFields(&p)...); err != nil {
			return err
		}
		a = got
		if repeat, err = booking.DecideCheckIn(got, r, p, now); repeat || err != nil {
			return err
		}
		return transition(ctx, tx, &a, booking.StatusArrived, now, booking.AuditCheckIn)
	})
	if err != nil {
		return booking.Appointment{}, false, translate(err, "")
	}
	return a, repeat, nil
}

// MarkNoShows makes up to limit BOOKED appointments NO_SHOW whose start is
// the policy's grace past (booking.Policy.AutoNoShow), oldest first: each
// in its own transaction, locking its slot and then itself as every other
// change of an appointment does (so none waits on another in the other
// order), decided again on the locked row. Concurrent passes skip what
// another has done.
func (s *Store) MarkNoShows(ctx context.Context, now time.Time, limit int) ([]booking.Appointment, error) {
	now = now.UTC().Truncate(time.Microsecond)
	out := []booking.Appointment{}
	p, err := s.ClinicPolicy(ctx)
	if err != nil || p.NoShowGraceMinutes <= 0 || limit <= 0 {
		return out, err
	}
	due := now.Add(-time.Duration(p.NoShowGraceMinutes) * time.Minute)
	rows, _ := s.pool.Query(ctx, `SELECT a.id FROM appointments a
		WHERE a.status = `+booking.StatusBookedSQL+` AND a.round_id IS NULL AND a.start_at <= $1
		ORDER BY a.start_at, a.id LIMIT $2`, due, limit)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return out, translate(err, "")
	}
	for _, id := range ids {
		var moved []booking.Appointment
		err := s.inTx(ctx, func(tx pgx.Tx) error {
			a, _, found, err := lockAppointment(ctx, tx, id, nil, nil)
			if err != nil || !found || !p.AutoNoShow(a, now) {
				return err
			}
			if err := transition(ctx, tx, &a, booking.StatusNoShow, now, booking.AuditAutoNoShow); err != nil {
				return err
			}
			moved = append(moved, a)
			return nil
		})
		if err != nil {
			return out, translate(err, "")
		}
		out = append(out, moved...)
	}
	return out, nil
}

// --- suspensions ----------------------------------------------------------------------

const (
	suspensionColumns = `id, scope, COALESCE(resource_id, 0), COALESCE(department_id, 0), from_at, to_at, reason,
		created_at, lifted_at`
	// sqlInsertSuspension records a suspension (of a doctor) or closure (of
	// a department or the clinic); no row back means the doctor or
	// department is unknown or the same one is already recorded.
	sqlInsertSuspension = `INSERT INTO suspensions (scope, resource_id, department_id, from_at, to_at, reason, created_at)
		SELECT $1, $2, $3, $4, $5, $6, $7
		WHERE $1 = 'clinic'
		   OR ($1 = 'doctor' AND EXISTS (SELECT 1 FROM resources WHERE id = $2 AND kind = 'doctor'))
		   OR ($1 = 'department' AND EXISTS (SELECT 1 FROM departments WHERE id = $3))
		ON CONFLICT DO NOTHING
		RETURNING ` + suspensionColumns
	sqlSuspensionByPeriod = `SELECT ` + suspensionColumns + ` FROM suspensions
		WHERE scope = $1 AND resource_id IS NOT DISTINCT FROM $2 AND department_id IS NOT DISTINCT FROM $3
		  AND from_at = $4 AND to_at = $5`
	// coveredSlots selects the ordinary slots of the doctors in a scope
	// ($1 scope, $2 doctor, $3 department) starting in [$4, $5).
	coveredSlots = `SELECT s.id FROM slots s WHERE s.round_id IS NULL AND s.start_at >= $4 AND s.start_at < $5
		AND s.resource_id IN (SELECT r.id FROM resources r WHERE r.kind = 'doctor'
			AND ($1 = 'clinic' OR ($1 = 'department' AND r.department_id = $3) OR ($1 = 'doctor' AND r.id = $2)))`
	// sqlCloseSlots locks the period's slots in id order (the order every
	// multi-slot locker uses) and closes the open ones, remembering that
	// suspension $6 closed them, so that a booking waiting for one of them
	// finds it closed and lifting $6 reopens exactly these.
	sqlCloseSlots = `WITH l AS MATERIALIZED (` + coveredSlots + ` ORDER BY s.id FOR UPDATE)
		UPDATE slots SET status = ` + booking.SlotClosedSQL + `, closed_by = $6 FROM l WHERE slots.id = l.id AND slots.status = ` + booking.SlotOpenSQL
)

// sqlCancelPeriod cancels the active appointments of the (locked) slots of
// a period by a conditional update and releases their places, one counter
// update per slot.
var sqlCancelPeriod = `WITH o AS MATERIALIZED (
		SELECT a.id, a.status FROM appointments a
		WHERE a.slot_id IN (` + coveredSlots + `) AND a.status IN ` + cancelFrom + `),
	x AS (
		UPDATE appointments a SET status = ` + booking.StatusCancelledSQL + `, updated_at = $6 FROM o
		WHERE a.id = o.id AND a.status IN ` + cancelFrom + `
		RETURNING a.id, a.slot_id, a.patient_id, a.start_at, o.status AS old),
	d AS (
		UPDATE slots s SET booked_count = s.booked_count - g.n
		FROM (SELECT slot_id, count(*)::integer AS n FROM x GROUP BY slot_id) g
		WHERE s.id = g.slot_id)
	SELECT id, patient_id, start_at, slot_id, old FROM x`

func scanSuspension(r pgx.Row) (booking.Suspension, error) {
	var s booking.Suspension
	err := r.Scan(&s.ID, &s.Scope, &s.DoctorID, &s.DepartmentID, &s.From, &s.To, &s.Reason, &s.CreatedAt, &s.LiftedAt)
	s.From, s.To, s.CreatedAt = s.From.UTC(), s.To.UTC(), s.CreatedAt.UTC()
	if s.LiftedAt != nil {
		t := s.LiftedAt.UTC()
		s.LiftedAt = &t
	}
	return s, err
}

// nullInt stores a zero id as NULL.
func nullInt(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// Suspend records a suspension of a doctor's period [From, To), or a
// closure of a department's or the clinic's, and, in the same
// transaction, closes the open slots starting in it (remembering that it
// closed them), cancels the active appointments of all its slots
// (releasing the places, and ending the entries of the offers among them
// as booking.Released says) and announces it once to each patient concerned,
// naming that patient's earliest cancelled appointment. Repeating one
// (same scope, target, from and to) returns the recorded one with Existing
// set and changes nothing.
func (s *Store) Suspend(ctx context.Context, sus booking.Suspension, now time.Time) (booking.SuspensionResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	sus, err := booking.CheckSuspension(sus)
	if err != nil {
		return booking.SuspensionResult{}, err
	}
	from, to := sus.From, sus.To
	doc, dep := nullInt(sus.DoctorID), nullInt(sus.DepartmentID)
	var res booking.SuspensionResult
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		rec, err := scanSuspension(tx.QueryRow(ctx, sqlInsertSuspension, sus.Scope, doc, dep, from, to, sus.Reason, now))
		if errors.Is(err, pgx.ErrNoRows) {
			// Already recorded (by us earlier, or by a concurrent call that
			// the insert waited for), or no such doctor or department.
			rec, err = scanSuspension(tx.QueryRow(ctx, sqlSuspensionByPeriod, sus.Scope, doc, dep, from, to))
			if errors.Is(err, pgx.ErrNoRows) {
				return booking.SuspensionNotFound(sus)
			}
			res = booking.SuspensionResult{Suspension: rec, Existing: true}
			return err
		}
		if err != nil {
			return err
		}
		res.Suspension = rec

		b := &pgx.Batch{}
		b.Queue(sqlCloseSlots, sus.Scope, doc, dep, from, to, rec.ID)
		b.Queue(sqlCancelPeriod, sus.Scope, doc, dep, from, to, now)
		br := tx.SendBatch(ctx, b)
		tag, err := br.Exec()
		if err != nil {
			br.Close()
			return err
		}
		res.SlotsClosed = int(tag.RowsAffected())
		rows, err := br.Query()
		if err != nil {
			br.Close()
			return err
		}
		var cancelled []booking.Appointment
		var a booking.Appointment
		var old booking.Status
		es := []booking.AuditEntry{booking.Audit(ctx, now, booking.AuditChange{Entity: booking.EntitySuspension, ID: rec.ID, Action: "suspend",
			After: booking.SuspensionState(rec)})}
		_, err = pgx.ForEachRow(rows, []any{&a.ID, &a.PatientID, &a.StartAt, &a.SlotID, &old}, func() error {
			a.Status = booking.StatusCancelled
			cancelled = append(cancelled, a)
			es = append(es, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: booking.AuditSuspensionCancel, From: old, Appointment: a, SuspensionID: rec.ID}))
			return nil
		})
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, es...); err != nil {
			return err
		}
		// The cancelled offers' entries end as booking.Released says (the
		// places themselves stay with the closed slots: none is kept).
		if err := s.release(ctx, tx, booking.Released(cancelled), now); err != nil {
			return err
		}
		if err := s.refundPaid(ctx, tx, cancelled, booking.SuspensionRefundReason(sus.Scope), now); err != nil {
			return err
		}
		res.Cancelled = len(cancelled)
		ns := booking.SuspensionNotices(rec.ID, cancelled)
		res.PatientsTold = len(ns)
		if err := s.notify(ctx, tx, ns); err != nil {
			return err
		}
		// A dose cancelled gives up its series' later doses, as Cancel does.
		for _, a := range cancelled {
			if err := s.cancelLaterDoses(ctx, tx, a.ID, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return booking.SuspensionResult{}, translate(err, "")
	}
	return res, nil
}

// GetSuspension returns one suspension.
func (s *Store) GetSuspension(ctx context.Context, id int64) (booking.Suspension, error) {
	sus, err := scanSuspension(s.pool.QueryRow(ctx, `SELECT `+suspensionColumns+` FROM suspensions WHERE id = $1`, id))
	return sus, translate(err, "suspension")
}

// --- reconciliation -----------------------------------------------------------------------

// reportLimit bounds the stale holds and refunds a report lists.
const reportLimit = 1000

const (
	// sqlCounterMismatches compares every slot's counter with its active
	// rows in one grouped scan: the active appointments are counted per
	// slot from the partial index on them and hash-joined to one pass over
	// the slots. It has no ORDER BY (Reconcile sorts the few rows it
	// returns): ordering by id makes the planner walk all of slots_pkey
	// for a merge join, over ten times the pages of the sequential scan.
	// Places kept for the waitlist (offer_pending) are taken places too,
	// and so are the further places of active visits (appointment_places).
	// A slot may exceed its capacity by its walk-in allowance and no more.
	sqlCounterMismatches = `SELECT s.id, s.capacity, s.booked_count, COALESCE(c.n, 0) + COALESCE(v.n, 0) + s.offer_pending
		FROM slots s LEFT JOIN (
			SELECT slot_id, count(*)::integer AS n FROM appointments
			WHERE status IN ` + booking.ActiveSQL + ` GROUP BY slot_id) c ON c.slot_id = s.id
		LEFT JOIN (` + sqlVisitPlaces + ` GROUP BY p.slot_id) v ON v.slot_id = s.id
		WHERE s.booked_count <> COALESCE(c.n, 0) + COALESCE(v.n, 0) + s.offer_pending
		   OR COALESCE(c.n, 0) + COALESCE(v.n, 0) + s.offer_pending > s.capacity + s.walk_ins`
	// sqlWalkIns counts the active walk-ins, through appointments_walk_in_active.
	sqlWalkIns = `SELECT count(*)::integer FROM appointments WHERE walk_in AND status IN ` + booking.ActiveSQL
	// sqlVisitPlaces counts active visits' further places per slot.
	sqlVisitPlaces = `SELECT p.slot_id, count(*)::integer AS n FROM appointment_places p
			JOIN appointments a ON a.id = p.appointment_id WHERE a.status IN ` + booking.ActiveSQL
	// sqlDuplicateActives finds patients holding a slot twice, which the
	// partial unique index should make impossible; the check is there for
	// when it was dropped or corrupted, so it reads the table, not the index.
	sqlDuplicateActives = `SELECT slot_id, patient_id, count(*)::integer FROM appointments
		WHERE status IN ` + booking.ActiveSQL + ` GROUP BY slot_id, patient_id HAVING count(*) > 1
		ORDER BY slot_id, patient_id`
	sqlStaleHolds = `SELECT ` + apptColumns + ` FROM appointments a JOIN slots s ON s.id = a.slot_id
		WHERE a.status = ` + booking.StatusHeldSQL + ` AND a.hold_expires_at <= $1 ORDER BY a.hold_expires_at, a.id LIMIT $2`
	sqlRefunds = `SELECT ` + paymentColumns + ` FROM payments WHERE outcome = 'needs-refund' AND refunded_at IS NULL
		ORDER BY id DESC LIMIT $1`
	sqlPaymentConflicts = `SELECT trade_no, appointment_id, amount_cents, received_at FROM payment_conflicts
		ORDER BY id LIMIT $1`
	// sqlUnrefundedCancels: paid places given back whose payment (one
	// recorded since refunds are, migration 00025) has no refund.
	sqlUnrefundedCancels = `SELECT ` + apptColumns + ` FROM appointments a JOIN slots s ON s.id = a.slot_id
		JOIN payments p ON p.appointment_id = a.id AND p.outcome = 'applied'
		WHERE a.status = ` + booking.StatusCancelledSQL + ` AND p.id > (SELECT refunds_after_payment FROM clinic_policy WHERE id = 1)
		  AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id)
		ORDER BY a.id LIMIT $1`

	// The repair: lock the slots in id order, then count their rows (a
	// statement of its own, so it sees everything committed before the
	// locks were granted; every change of a counter or of an appointment's
	// activity holds the slot's lock, so the count is exact), then set.
	sqlLockSlots   = `SELECT id, capacity + walk_ins, booked_count FROM slots WHERE id = ANY($1) ORDER BY id FOR UPDATE`
	sqlCountActive = `SELECT s.id, (SELECT count(*) FROM appointments a
			WHERE a.slot_id = s.id AND a.status IN ` + booking.ActiveSQL + `)::integer + s.offer_pending
		     + (SELECT count(*) FROM appointment_places p JOIN appointments a ON a.id = p.appointment_id
			WHERE p.slot_id = s.id AND a.status IN ` + booking.ActiveSQL + `)::integer
		FROM slots s WHERE s.id = ANY($1)`
	sqlSetCounters = `UPDATE slots SET booked_count = v.n FROM unnest($1::bigint[], $2::integer[]) AS v(id, n)
		WHERE slots.id = v.id`
)

// Reconcile reports the invariant breaches (docs/reliability.md) — counters that
// disagree with their rows, patients holding a slot twice, round quotas
// that disagree with the allocations (reported, never repaired) — and the work
// left to do: holds past their deadline and payments to refund. The report
// is read in one pipeline. With repair, it then sets each mismatched
// counter that fits the slot's capacity to its row count, in one
// transaction with those slots locked, and lists the changes in Repaired.
func (s *Store) Reconcile(ctx context.Context, now time.Time, repair bool) (booking.Reconciliation, error) {
	now = now.UTC().Truncate(time.Microsecond)
	rep := booking.NewReconciliation(now)
	b := &pgx.Batch{}
	b.Queue(sqlCounterMismatches)
	b.Queue(sqlDuplicateActives)
	b.Queue(sqlStaleHolds, now, reportLimit)
	b.Queue(sqlRefunds, reportLimit)
	b.Queue(sqlRoundQuotaMismatches)
	b.Queue(sqlPaymentConflicts, reportLimit)
	b.Queue(sqlUnrefundedCancels, reportLimit)
	b.Queue(sqlBrokenSeries, reportLimit)
	b.Queue(sqlWalkIns)
	if err := readReport(s.pool.SendBatch(ctx, b), &rep); err != nil {
		return booking.Reconciliation{}, translate(err, "")
	}
	if !repair || len(rep.CounterMismatches) == 0 {
		return rep, nil
	}
	ids := make([]int64, len(rep.CounterMismatches))
	for i, m := range rep.CounterMismatches {
		ids[i] = m.SlotID
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rep.Repaired = rep.Repaired[:0]
		b := &pgx.Batch{}
		b.Queue(sqlLockSlots, ids)
		b.Queue(sqlCountActive, ids)
		br := tx.SendBatch(ctx, b)
		type counter struct{ limit, booked int }
		locked := map[int64]counter{}
		var order []int64
		var id int64
		var c counter
		rows, _ := br.Query()
		_, err := pgx.ForEachRow(rows, []any{&id, &c.limit, &c.booked}, func() error {
			locked[id] = c
			order = append(order, id)
			return nil
		})
		active := map[int64]int{}
		if err == nil {
			var n int
			rows, _ = br.Query()
			_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error { active[id] = n; return nil })
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		var setIDs []int64
		var setN []int32
		for _, id := range order {
			c := locked[id]
			if r, ok := booking.RepairCounter(id, c.limit, c.booked, active[id]); ok {
				setIDs, setN = append(setIDs, id), append(setN, int32(r.To))
				rep.Repaired = append(rep.Repaired, r)
			}
		}
		if len(setIDs) == 0 {
			return nil
		}
		if _, err = tx.Exec(ctx, sqlSetCounters, setIDs, setN); err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditRepairs(ctx, now, rep.Repaired)...)
	})
	if err != nil {
		return booking.Reconciliation{}, translate(err, "")
	}
	return rep, nil
}

// readReport reads the answers of Reconcile's report pipeline into rep.
func readReport(br pgx.BatchResults, rep *booking.Reconciliation) (err error) {
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	var m booking.CounterMismatch
	rows, _ := br.Query()
	if _, err = pgx.ForEachRow(rows, []any{&m.SlotID, &m.Capacity, &m.BookedCount, &m.Active}, func() error {
		rep.CounterMismatches = append(rep.CounterMismatches, m)
		return nil
	}); err != nil {
		return err
	}
	slices.SortFunc(rep.CounterMismatches, func(a, b booking.CounterMismatch) int { return cmp.Compare(a.SlotID, b.SlotID) })
	var d booking.DuplicateActive
	rows, _ = br.Query()
	if _, err = pgx.ForEachRow(rows, []any{&d.SlotID, &d.PatientID, &d.Count}, func() error {
		rep.DuplicateActives = append(rep.DuplicateActives, d)
		return nil
	}); err != nil {
		return err
	}
	rows, _ = br.Query()
	stale, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	if err != nil {
		return err
	}
	rep.StaleHolds = append(rep.StaleHolds, stale...)
	rows, _ = br.Query()
	refunds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Payment, error) { return scanPayment(r) })
	if err != nil {
		return err
	}
	rep.RefundsNeeded = append(rep.RefundsNeeded, refunds...)
	var q booking.RoundQuotaMismatch
	rows, _ = br.Query()
	if _, err = pgx.ForEachRow(rows, []any{&q.RoundID, &q.PatientID, &q.Used, &q.Active}, func() error {
		rep.RoundQuotaMismatches = append(rep.RoundQuotaMismatches, q)
		return nil
	}); err != nil {
		return err
	}
	var c booking.PaymentConflict
	rows, _ = br.Query()
	_, err = pgx.ForEachRow(rows, []any{&c.TradeNo, &c.AppointmentID, &c.AmountCents, &c.ReceivedAt}, func() error {
		c.ReceivedAt = c.ReceivedAt.UTC()
		rep.PaymentConflicts = append(rep.PaymentConflicts, c)
		return nil
	})
	if err != nil {
		return err
	}
	rows, _ = br.Query()
	lost, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Appointment, error) { return scanAppointment(r) })
	rep.UnrefundedCancels = append(rep.UnrefundedCancels, lost...)
	if err != nil {
		return err
	}
	rows, _ = br.Query()
	broken, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	rep.BrokenSeries = append(rep.BrokenSeries, broken...)
	if err != nil {
		return err
	}
	return br.QueryRow().Scan(&rep.WalkIns)
}
