package sqlite

// The appointment lifecycle (docs/contracts/lifecycle.md):
// payments, hold expiry, staff transitions, suspensions and reconciliation.
//
// Every state change here is one write transaction on the single writer
// connection (BEGIN IMMEDIATE), so it is serialized against Book, Cancel and
// every other change, in this process and, through SQLite's file lock, in
// any other process on the same file. Each change is still written as the
// conditional update of the transition table (WHERE status = <from>), so the
// rule lives in the statement and a place is released only for a row the
// update actually changed.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// moveTo performs one transition of booking's table on a, read in tx: a
// conditional update from a's current state, and the release of its place
// when the old state occupied one and the new does not. a is updated to the
// new state. Under the write lock the row cannot have changed since it was
// read, so an update that changes nothing is a bug, not a lost race.
func moveTo(ctx context.Context, tx *sql.Tx, a *booking.Appointment, to booking.Status, now time.Time, action string) error {
	if !booking.CanTransition(a.Status, to) {
		return booking.Errorf(booking.CodeInvalidTransition, "a %s appointment cannot become %s", a.Status, to)
	}
	res, err := tx.ExecContext(ctx,
		`UPDATE appointments SET status = ?, updated_at = ? WHERE id = ? AND status = ?`,
		string(to), ts(now), a.ID, string(a.Status))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return fmt.Errorf("sqlite: appointment %d changed under the write lock", a.ID)
	}
	if a.Status.Active() && !to.Active() {
		if _, err := tx.ExecContext(ctx,
			`UPDATE slots SET booked_count = booked_count - 1 WHERE id = ?`, a.SlotID); err != nil {
			return err
		}
	}
	from := a.Status
	a.Status, a.UpdatedAt = to, now
	return writeAudit(ctx, tx, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: action, From: from, Appointment: *a}))
}

// releasePlaces lowers each slot's counter by the number of its
// appointments that just left an active state, in slot order.
func releasePlaces(ctx context.Context, tx *sql.Tx, perSlot map[int64]int) error {
	ids := make([]int64, 0, len(perSlot))
	for id := range perSlot {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx,
			`UPDATE slots SET booked_count = booked_count - ? WHERE id = ?`, perSlot[id], id); err != nil {
			return err
		}
	}
	return nil
}

// apptsByID reads appointments by id in tx, ordered by hold deadline then id
// (the order ExpireHolds answers in).
func apptsByID(ctx context.Context, q querier, ids []int64) ([]booking.Appointment, error) {
	out := []booking.Appointment{}
	if len(ids) == 0 {
		return out, nil
	}
	j, _ := json.Marshal(ids)
	rows, err := q.QueryContext(ctx, `SELECT `+apptCols+apptFrom+`
		WHERE a.id IN (SELECT value FROM json_each(?)) ORDER BY a.hold_expires_at, a.id`, string(j))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAppt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

const paymentCols = `trade_no, appointment_id, amount_cents, outcome, reason, received_at`

func scanPayment(sc interface{ Scan(...any) error }) (booking.Payment, error) {
	var p booking.Payment
	var reason sql.NullString
	var received int64
	if err := sc.Scan(&p.TradeNo, &p.AppointmentID, &p.AmountCents, &p.Outcome, &reason, &received); err != nil {
		return p, err
	}
	p.Reason = reason.String
	p.ReceivedAt = fromTS(received)
	return p, nil
}

// ConfirmPayment records a provider's payment and applies it when it can
// (docs/contracts/lifecycle.md, "ConfirmPayment"), in one write
// transaction. A payment that cannot be applied is still recorded, as
// needing a refund, and answered with the result AND a
// CodePaymentRejected error. The payment never wins against a passed
// deadline: a hold past it that the expiry job has not reached yet is
// expired here, in the same transaction. Racing ExpireHolds, exactly one
// wins, because both are conditional updates from HELD inside serialized
// transactions.
func (s *Store) ConfirmPayment(ctx context.Context, p booking.Payment, now time.Time) (booking.PaymentResult, error) {
	now = micro(now)
	if p.ReceivedAt.IsZero() {
		p.ReceivedAt = now
	}
	p.ReceivedAt = micro(p.ReceivedAt)
	var res booking.PaymentResult
	var rejected *booking.Error
	err := s.write(ctx, func(tx *sql.Tx) error {
		var recorded *booking.Payment
		r, err := scanPayment(tx.QueryRowContext(ctx,
			`SELECT `+paymentCols+` FROM payments WHERE trade_no = ?`, p.TradeNo))
		switch {
		case err == nil:
			recorded = &r
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var appt *booking.Appointment
		var fee int64
		a, err := getAppt(ctx, tx, p.AppointmentID)
		switch {
		case err == nil:
			appt = &a
			if err := tx.QueryRowContext(ctx, `SELECT fee_cents FROM slots WHERE id = ?`, a.SlotID).Scan(&fee); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		d, err := booking.DecidePayment(p, booking.PaymentReads{Recorded: recorded, Appointment: appt, FeeCents: fee}, now)
		switch {
		case err != nil:
			return err
		case d.Duplicate:
			res = booking.PaymentResult{Payment: *recorded, Appointment: a, Duplicate: true}
			return nil
		case d.Conflict:
			res, rejected = booking.PaymentResult{Payment: *recorded}, d.Err
			_, err := tx.ExecContext(ctx, `INSERT INTO payment_conflicts (trade_no, appointment_id, amount_cents, received_at)
				VALUES (?, ?, ?, ?) ON CONFLICT (trade_no, appointment_id, amount_cents) DO NOTHING`,
				p.TradeNo, p.AppointmentID, p.AmountCents, ts(p.ReceivedAt))
			return err
		}
		var ns []booking.Notification
		if d.To != "" {
			if err := moveTo(ctx, tx, &a, d.To, now, "payment"); err != nil {
				return err
			}
			ns = append(ns, booking.Notification{Kind: d.Notify, AppointmentID: a.ID})
		}
		rec := d.Record
		var pid int64
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO payments (trade_no, appointment_id, amount_cents, outcome, reason, received_at)
			 VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			rec.TradeNo, rec.AppointmentID, rec.AmountCents, rec.Outcome, nullText(rec.Reason), ts(rec.ReceivedAt)).Scan(&pid); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.Audit(ctx, now, booking.AuditChange{Entity: booking.EntityPayment, ID: pid, Action: "record",
			After: map[string]any{"appointmentId": rec.AppointmentID, "outcome": rec.Outcome}})); err != nil {
			return err
		}
		if d.RefundReason != "" {
			ref := booking.NewRefund(pid, rec.TradeNo, rec.AppointmentID, booking.RefundCase{Paid: rec.AmountCents, Reason: d.RefundReason, At: now})
			if err := s.writeRefunds(ctx, tx, []booking.Refund{ref}, now); err != nil {
				return err
			}
		}
		res, rejected = booking.PaymentResult{Payment: rec, Appointment: a}, d.Err
		return s.notify(ctx, tx, ns)
	})
	if err != nil {
		return booking.PaymentResult{}, mapErr(err, "appointment")
	}
	if rejected != nil {
		return res, rejected
	}
	return res, nil
}

// expireSQL is the transition HELD → EXPIRED for up to ?2 holds whose
// deadline is at or before ?1, oldest deadline first. The inner SELECT
// walks appointments_held_idx in order (its WHERE is that of
// the partial index), and the outer WHERE repeats the condition of the
// transition table, so only a row still HELD is changed.
var expireSQL = `UPDATE appointments SET status = ` + booking.StatusExpiredSQL + `, updated_at = ?1
	WHERE id IN (SELECT id FROM appointments WHERE status = ` + booking.StatusHeldSQL + ` AND hold_expires_at <= ?1
	              ORDER BY hold_expires_at, id LIMIT ?2)
	  AND status IN ` + booking.SQLList(booking.Sources(booking.StatusExpired)) + `
	RETURNING id`

// ExpireHolds expires up to limit HELD appointments past their deadline,
// oldest deadline first, in one write transaction: each slot's counter goes
// down by the number expired in it, and what booking.DecideExpiry says the
// expiries trigger (audit, notices, the waiting list) is applied. It
// returns the expired appointments in their new state, oldest deadline
// first. Several instances (or processes) may run it at once: their
// transactions are serialized and the conditional update changes a row
// once, so a place is released exactly once.
func (s *Store) ExpireHolds(ctx context.Context, now time.Time, limit int) ([]booking.Appointment, error) {
	if limit <= 0 {
		// LIMIT -1 would mean no limit to SQLite; a non-positive limit is
		// taken as "nothing this pass" instead.
		return []booking.Appointment{}, nil
	}
	now = micro(now)
	var out []booking.Appointment
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, expireSQL, ts(now), limit)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if out, err = apptsByID(ctx, tx, ids); err != nil {
			return err
		}
		x := booking.DecideExpiry(booking.ActorOf(ctx), out, now)
		// HELD occupies a place and EXPIRED does not: release each once
		// (what PostgreSQL's expiry statement does in itself).
		if err := releasePlaces(ctx, tx, x.Release.Places); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, x.Audit...); err != nil {
			return err
		}
		if err := s.release(ctx, tx, x.Release, now); err != nil {
			return err
		}
		return s.notify(ctx, tx, x.Notify)
	})
	if err != nil {
		return nil, mapErr(err, "")
	}
	return out, nil
}

// Transition moves an appointment to COMPLETED or NO_SHOW for staff, in one
// write transaction. An appointment already in that state is returned
// unchanged (a repeated click changes nothing); a move the transition table
// does not allow is CodeInvalidTransition. These transitions announce
// nothing.
func (s *Store) Transition(ctx context.Context, appointmentID int64, to booking.Status, now time.Time) (booking.Appointment, error) {
	if err := booking.StaffTarget(to); err != nil {
		return booking.Appointment{}, err
	}
	now = micro(now)
	var a booking.Appointment
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		a, err = getAppt(ctx, tx, appointmentID)
		if err != nil {
			return err
		}
		if noop, err := booking.StaffTransition(a.Status, to, a.StartAt, now); noop || err != nil {
			return err
		}
		return moveTo(ctx, tx, &a, to, now, strings.ToLower(string(to)))
	})
	if err != nil {
		return booking.Appointment{}, mapErr(err, "appointment")
	}
	return a, nil
}

// CheckIn checks a patient in, in one write transaction
// (booking.DecideCheckIn decides under the clinic's policy): BOOKED becomes
// ARRIVED, keeping its place; an appointment already ARRIVED is answered
// as it is, with repeat set. See booking.CheckInRequest.
func (s *Store) CheckIn(ctx context.Context, r booking.CheckInRequest, now time.Time) (a booking.Appointment, repeat bool, err error) {
	now = micro(now)
	err = s.write(ctx, func(tx *sql.Tx) error {
		if a, err = getAppt(ctx, tx, r.AppointmentID); err != nil {
			return err
		}
		var p booking.Policy
		if err := tx.QueryRowContext(ctx, `SELECT `+policyCols+` FROM clinic_policy WHERE id = 1`).Scan(policyFields(&p)...); err != nil {
			return err
		}
		if repeat, err = booking.DecideCheckIn(a, r, p, now); repeat || err != nil {
			return err
		}
		return moveTo(ctx, tx, &a, booking.StatusArrived, now, booking.AuditCheckIn)
	})
	if err != nil {
		return booking.Appointment{}, false, mapErr(err, "appointment")
	}
	return a, repeat, nil
}

// MarkNoShows makes up to limit BOOKED appointments NO_SHOW whose start is
// the policy's grace past (booking.Policy.AutoNoShow), oldest first, in one
// write transaction, releasing each place once.
func (s *Store) MarkNoShows(ctx context.Context, now time.Time, limit int) ([]booking.Appointment, error) {
	now = micro(now)
	out := []booking.Appointment{}
	err := s.write(ctx, func(tx *sql.Tx) error {
		var p booking.Policy
		if err := tx.QueryRowContext(ctx, `SELECT `+policyCols+` FROM clinic_policy WHERE id = 1`).Scan(policyFields(&p)...); err != nil {
			return err
		}
		if p.NoShowGraceMinutes <= 0 || limit <= 0 {
			return nil
		}
		due := now.Add(-time.Duration(p.NoShowGraceMinutes) * time.Minute)
		rows, err := tx.QueryContext(ctx, `SELECT `+apptCols+apptFrom+`WHERE a.status = `+booking.StatusBookedSQL+`
			AND a.round_id IS NULL AND a.start_at <= ? ORDER BY a.start_at, a.id LIMIT ?`, ts(due), limit)
		if err != nil {
			return err
		}
		var found []booking.Appointment
		for rows.Next() {
			a, err := scanAppt(rows)
			if err != nil {
				rows.Close()
				return err
			}
			found = append(found, a)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, a := range found {
			if !p.AutoNoShow(a, now) {
				continue
			}
			if err := moveTo(ctx, tx, &a, booking.StatusNoShow, now, booking.AuditAutoNoShow); err != nil {
				return err
			}
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return []booking.Appointment{}, mapErr(err, "")
	}
	return out, nil
}

const suspensionCols = `id, scope, coalesce(resource_id, 0), coalesce(department_id, 0), from_at, to_at, reason,
	created_at, lifted_at`

func scanSuspension(sc interface{ Scan(...any) error }) (booking.Suspension, error) {
	var s booking.Suspension
	var from, to, created int64
	var lifted sql.NullInt64
	if err := sc.Scan(&s.ID, &s.Scope, &s.DoctorID, &s.DepartmentID, &from, &to, &s.Reason, &created, &lifted); err != nil {
		return s, err
	}
	s.From, s.To, s.CreatedAt = fromTS(from), fromTS(to), fromTS(created)
	if lifted.Valid {
		t := fromTS(lifted.Int64)
		s.LiftedAt = &t
	}
	return s, nil
}

// coveredSlotsSQL selects the ordinary slots of the doctors in a scope (?5
// scope, ?6 doctor, ?7 department) starting in [?3, ?4).
const coveredSlotsSQL = `SELECT s.id FROM slots s WHERE s.round_id IS NULL AND s.start_at >= ?3 AND s.start_at < ?4
	AND s.resource_id IN (SELECT r.id FROM resources r WHERE r.kind = 'doctor'
		AND (?5 = 'clinic' OR (?5 = 'department' AND r.department_id = ?7) OR (?5 = 'doctor' AND r.id = ?6)))`

// suspendCancelSQL cancels the active appointments of the covered slots;
// the status list is the transition table's sources of CANCELLED.
var suspendCancelSQL = `UPDATE appointments SET status = ` + booking.StatusCancelledSQL + `, updated_at = ?1
	WHERE slot_id IN (` + coveredSlotsSQL + `)
	  AND status IN ` + booking.SQLList(booking.Sources(booking.StatusCancelled)) + `
	RETURNING id, slot_id, patient_id, start_at`

// Suspend closes the open slots of a doctor's (or a department's, or the
// clinic's) period [From, To), remembering that it closed them, and
// cancels the active appointments of all its slots, in one write
// transaction, telling each patient once (docs/contracts/lifecycle.md,
// "Suspend"). The same scope, target and period again returns the
// recorded suspension with Existing set and changes nothing.
func (s *Store) Suspend(ctx context.Context, sus booking.Suspension, now time.Time) (booking.SuspensionResult, error) {
	sus, err := booking.CheckSuspension(sus)
	if err != nil {
		return booking.SuspensionResult{}, err
	}
	now = micro(now)
	sus.CreatedAt = now
	scope := []any{ts(now), 0, ts(sus.From), ts(sus.To), sus.Scope, sus.DoctorID, sus.DepartmentID}
	var res booking.SuspensionResult
	err = s.write(ctx, func(tx *sql.Tx) error {
		got, err := scanSuspension(tx.QueryRowContext(ctx,
			`SELECT `+suspensionCols+` FROM suspensions WHERE scope = ? AND coalesce(resource_id, 0) = ?
			   AND coalesce(department_id, 0) = ? AND from_at = ? AND to_at = ?`,
			sus.Scope, sus.DoctorID, sus.DepartmentID, ts(sus.From), ts(sus.To)))
		switch {
		case err == nil:
			res = booking.SuspensionResult{Suspension: got, Existing: true}
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		// Its doctor or department must exist (the clinic always does).
		if sus.Scope != booking.ScopeClinic {
			q, id := `SELECT 1 FROM resources WHERE id = ? AND kind = 'doctor'`, sus.DoctorID
			if sus.Scope == booking.ScopeDepartment {
				q, id = `SELECT 1 FROM departments WHERE id = ?`, sus.DepartmentID
			}
			if err := exists(ctx, tx, q, id); errors.Is(err, sql.ErrNoRows) {
				return booking.SuspensionNotFound(sus)
			} else if err != nil {
				return err
			}
		}
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO suspensions (scope, resource_id, department_id, from_at, to_at, reason, created_at)
			 VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			sus.Scope, nullID(sus.DoctorID), nullID(sus.DepartmentID), ts(sus.From), ts(sus.To), sus.Reason, ts(now)).Scan(&sus.ID); err != nil {
			return err
		}
		res.Suspension = sus

		// Closed first, so that no booking can take a place in them again.
		// Only open ones count, and only they reopen when it is lifted.
		closed, err := tx.ExecContext(ctx,
			`UPDATE slots SET status = `+booking.SlotClosedSQL+`, closed_by = ?2 WHERE status = `+booking.SlotOpenSQL+` AND id IN (`+coveredSlotsSQL+`)`,
			append([]any{scope[0], sus.ID}, scope[2:]...)...)
		if err != nil {
			return err
		}
		n, err := closed.RowsAffected()
		if err != nil {
			return err
		}
		res.SlotsClosed = int(n)

		// The states before the cancel, for the audit log (RETURNING gives
		// the row after it).
		old := map[int64]booking.Status{}
		if err := eachRow(ctx, tx, `SELECT id, status FROM appointments WHERE slot_id IN (`+coveredSlotsSQL+`)
			AND status IN `+booking.ActiveSQL, scope, func(rows *sql.Rows) error {
			var id int64
			var st booking.Status
			err := rows.Scan(&id, &st)
			old[id] = st
			return err
		}); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, suspendCancelSQL, scope...)
		if err != nil {
			return err
		}
		var cancelled []booking.Appointment
		for rows.Next() {
			var a booking.Appointment
			var start int64
			if err := rows.Scan(&a.ID, &a.SlotID, &a.PatientID, &start); err != nil {
				rows.Close()
				return err
			}
			a.StartAt = fromTS(start)
			a.Status = booking.StatusCancelled
			cancelled = append(cancelled, a)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		// Every source of CANCELLED (HELD, BOOKED, ARRIVED) occupies a place: release
		// each once, and end the entries of the offers among them as
		// booking.Released says (the slots are closed: no place is kept).
		r := booking.Released(cancelled)
		if err := releasePlaces(ctx, tx, r.Places); err != nil {
			return err
		}
		es := []booking.AuditEntry{booking.Audit(ctx, now, booking.AuditChange{Entity: booking.EntitySuspension, ID: sus.ID, Action: "suspend", After: booking.SuspensionState(sus)})}
		for _, a := range cancelled {
			es = append(es, booking.AuditAppointment(ctx, now, booking.AppointmentChange{Action: booking.AuditSuspensionCancel, From: old[a.ID], Appointment: a, SuspensionID: sus.ID}))
		}
		if err := writeAudit(ctx, tx, es...); err != nil {
			return err
		}
		if err := s.release(ctx, tx, r, now); err != nil {
			return err
		}
		if err := s.refundPaid(ctx, tx, cancelled, booking.SuspensionRefundReason(sus.Scope), now); err != nil {
			return err
		}
		res.Cancelled = len(cancelled)
		ns := booking.SuspensionNotices(sus.ID, cancelled)
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
		return booking.SuspensionResult{}, mapErr(err, "doctor")
	}
	return res, nil
}

// GetSuspension returns one suspension.
func (s *Store) GetSuspension(ctx context.Context, id int64) (booking.Suspension, error) {
	sus, err := scanSuspension(s.reader.QueryRowContext(ctx,
		`SELECT `+suspensionCols+` FROM suspensions WHERE id = ?`, id))
	if err != nil {
		return booking.Suspension{}, mapErr(err, "suspension")
	}
	return sus, nil
}

// reportLimit bounds the stale holds and refunds a report lists.
const reportLimit = 1000

// mismatchSQL is the reconciliation's one grouped scan: the active rows
// counted per slot through the partial index on active appointments
// (appointments_slot_queue_active: slot_id first, only the active rows),
// merged with every slot's counter. Only disagreeing slots come back, and
// those above their capacity plus their walk-in allowance. Active visits'
// further places (appointment_places) are counted too.
const mismatchSQL = `WITH active AS (
		SELECT slot_id, count(*) AS n FROM appointments
		 WHERE status IN ` + booking.ActiveSQL + ` GROUP BY slot_id),
	places AS (
		SELECT p.slot_id, count(*) AS n FROM appointment_places p JOIN appointments a ON a.id = p.appointment_id
		 WHERE a.status IN ` + booking.ActiveSQL + ` GROUP BY p.slot_id)
	SELECT s.id, s.capacity, s.booked_count, coalesce(active.n, 0) + coalesce(places.n, 0) + s.offer_pending AS n
	  FROM slots s LEFT JOIN active ON active.slot_id = s.id LEFT JOIN places ON places.slot_id = s.id
	 WHERE s.booked_count <> coalesce(active.n, 0) + coalesce(places.n, 0) + s.offer_pending
	    OR coalesce(active.n, 0) + coalesce(places.n, 0) + s.offer_pending > s.capacity + s.walk_ins
	 ORDER BY s.id`

// walkInsSQL counts the active walk-ins, through appointments_walk_in_active.
const walkInsSQL = `SELECT count(*) FROM appointments WHERE walk_in AND status IN ` + booking.ActiveSQL

// Reconcile builds the invariant report (docs/reliability.md) from one read
// transaction on the reader pool (a consistent snapshot that never waits
// for, nor blocks, the writer), then, with repair, sets each mismatched
// counter from its rows in one short write transaction. The repair
// recounts each reported slot under the write lock and changes it only if
// it still disagrees and its rows fit its capacity (an overfull slot is
// reported, never "repaired" above capacity), so the report may be a
// moment old without a repair ever acting on stale numbers.
func (s *Store) Reconcile(ctx context.Context, now time.Time, repair bool) (booking.Reconciliation, error) {
	now = micro(now)
	rep, err := s.reconcileReport(ctx, now)
	if err != nil {
		return booking.Reconciliation{}, mapErr(err, "")
	}
	if !repair || len(rep.CounterMismatches) == 0 {
		return rep, nil
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		rep.Repaired = rep.Repaired[:0]
		for _, m := range rep.CounterMismatches {
			var limit, booked, active int
			err := tx.QueryRowContext(ctx,
				`SELECT capacity + walk_ins, booked_count,
				        (SELECT count(*) FROM appointments WHERE slot_id = ?1 AND status IN `+booking.ActiveSQL+`) + offer_pending
				        + (SELECT count(*) FROM appointment_places p JOIN appointments a ON a.id = p.appointment_id
				            WHERE p.slot_id = ?1 AND a.status IN `+booking.ActiveSQL+`)
				   FROM slots WHERE id = ?1`, m.SlotID).Scan(&limit, &booked, &active)
			if err != nil {
				return err
			}
			r, ok := booking.RepairCounter(m.SlotID, limit, booked, active)
			if !ok {
				continue
			}
			if _, err := tx.ExecContext(ctx,
				`UPDATE slots SET booked_count = ? WHERE id = ? AND booked_count = ?`, r.To, m.SlotID, booked); err != nil {
				return err
			}
			rep.Repaired = append(rep.Repaired, r)
		}
		return writeAudit(ctx, tx, booking.AuditRepairs(ctx, now, rep.Repaired)...)
	})
	if err != nil {
		return booking.Reconciliation{}, mapErr(err, "")
	}
	return rep, nil
}

// reconcileReport reads the report in one read transaction.
func (s *Store) reconcileReport(ctx context.Context, now time.Time) (booking.Reconciliation, error) {
	rep := booking.NewReconciliation(now)
	tx, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		return rep, err
	}
	defer tx.Rollback()

	if err := eachRow(ctx, tx, mismatchSQL, nil, func(rows *sql.Rows) error {
		var m booking.CounterMismatch
		if err := rows.Scan(&m.SlotID, &m.Capacity, &m.BookedCount, &m.Active); err != nil {
			return err
		}
		rep.CounterMismatches = append(rep.CounterMismatches, m)
		return nil
	}); err != nil {
		return rep, err
	}
	// appointments_slot_patient_active makes this empty unless the index
	// was bypassed; it is counted from the rows all the same.
	if err := eachRow(ctx, tx, `SELECT slot_id, patient_id, count(*) FROM appointments
		 WHERE status IN `+booking.ActiveSQL+` GROUP BY slot_id, patient_id HAVING count(*) > 1
		 ORDER BY slot_id, patient_id`, nil, func(rows *sql.Rows) error {
		var d booking.DuplicateActive
		if err := rows.Scan(&d.SlotID, &d.PatientID, &d.Count); err != nil {
			return err
		}
		rep.DuplicateActives = append(rep.DuplicateActives, d)
		return nil
	}); err != nil {
		return rep, err
	}
	if err := eachRow(ctx, tx, `SELECT `+apptCols+apptFrom+`
		 WHERE a.status = `+booking.StatusHeldSQL+` AND a.hold_expires_at <= ? ORDER BY a.hold_expires_at, a.id LIMIT ?`,
		[]any{ts(now), reportLimit}, func(rows *sql.Rows) error {
			a, err := scanAppt(rows)
			if err != nil {
				return err
			}
			rep.StaleHolds = append(rep.StaleHolds, a)
			return nil
		}); err != nil {
		return rep, err
	}
	if err := eachRow(ctx, tx, `SELECT `+paymentCols+` FROM payments
		 WHERE outcome = 'needs-refund' AND refunded_at IS NULL ORDER BY id DESC LIMIT ?`, []any{reportLimit}, func(rows *sql.Rows) error {
		p, err := scanPayment(rows)
		if err != nil {
			return err
		}
		rep.RefundsNeeded = append(rep.RefundsNeeded, p)
		return nil
	}); err != nil {
		return rep, err
	}
	if err := eachRow(ctx, tx, roundQuotaMismatchSQL, nil, func(rows *sql.Rows) error {
		var m booking.RoundQuotaMismatch
		if err := rows.Scan(&m.RoundID, &m.PatientID, &m.Used, &m.Active); err != nil {
			return err
		}
		rep.RoundQuotaMismatches = append(rep.RoundQuotaMismatches, m)
		return nil
	}); err != nil {
		return rep, err
	}
	if err := eachRow(ctx, tx, `SELECT trade_no, appointment_id, amount_cents, received_at FROM payment_conflicts
		 ORDER BY id LIMIT ?`, []any{reportLimit}, func(rows *sql.Rows) error {
		var c booking.PaymentConflict
		var received int64
		if err := rows.Scan(&c.TradeNo, &c.AppointmentID, &c.AmountCents, &received); err != nil {
			return err
		}
		c.ReceivedAt = fromTS(received)
		rep.PaymentConflicts = append(rep.PaymentConflicts, c)
		return nil
	}); err != nil {
		return rep, err
	}
	if err := tx.QueryRowContext(ctx, walkInsSQL).Scan(&rep.WalkIns); err != nil {
		return rep, err
	}
	// SQLite's JSON array length is json_array_length (PostgreSQL: jsonb_array_length).
	if err := eachRow(ctx, tx, booking.BrokenSeriesSQL("json_array_length(s.windows) + 1", "?"), []any{reportLimit},
		func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			rep.BrokenSeries = append(rep.BrokenSeries, id)
			return err
		}); err != nil {
		return rep, err
	}
	// Paid places given back whose payment (one recorded since refunds
	// are, migration 00025) has no refund.
	if err := eachRow(ctx, tx, `SELECT `+apptCols+apptFrom+`
		 JOIN payments p ON p.appointment_id = a.id AND p.outcome = 'applied'
		 WHERE a.status = `+booking.StatusCancelledSQL+` AND p.id > (SELECT refunds_after_payment FROM clinic_policy WHERE id = 1)
		   AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id)
		 ORDER BY a.id LIMIT ?`, []any{reportLimit}, func(rows *sql.Rows) error {
		a, err := scanAppt(rows)
		rep.UnrefundedCancels = append(rep.UnrefundedCancels, a)
		return err
	}); err != nil {
		return rep, err
	}
	return rep, nil
}

// eachRow runs a query and calls fn for each row.
func eachRow(ctx context.Context, q querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
