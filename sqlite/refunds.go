package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

const refundCols = `r.id, r.appointment_id, r.payment_id, p.trade_no, r.amount_cents, r.paid_cents, r.reason, r.state,
	coalesce(r.provider_ref, ''), coalesce(r.failure, ''), r.attempts, r.created_at, r.updated_at, r.settled_at`

// refundFrom joins a refund's payment, for its trade number.
const refundFrom = ` FROM refunds r JOIN payments p ON p.id = r.payment_id`

func scanRefund(sc interface{ Scan(...any) error }) (booking.Refund, error) {
	var r booking.Refund
	var created, updated int64
	var settled sql.NullInt64
	err := sc.Scan(&r.ID, &r.AppointmentID, &r.PaymentID, &r.TradeNo, &r.AmountCents, &r.PaidCents, &r.Reason, &r.State,
		&r.ProviderRef, &r.Failure, &r.Attempts, &created, &updated, &settled)
	r.CreatedAt, r.UpdatedAt = fromTS(created), fromTS(updated)
	if settled.Valid {
		t := fromTS(settled.Int64)
		r.SettledAt = &t
	}
	return r, err
}

// refundPaid writes, inside tx, the refunds of the applied payments of
// appointments as (just given back for reason at now), with their audit
// entries and jobs (booking.NotifyRefundDue); the unique payment makes a
// repeat insert nothing. A patient's own cancel reads the slot's policy
// for the amount (booking.RefundAmount).
func (s *Store) refundPaid(ctx context.Context, tx *sql.Tx, as []booking.Appointment, reason string, now time.Time) error {
	if len(as) == 0 {
		return nil
	}
	byID := make(map[int64]booking.Appointment, len(as))
	args := make([]any, len(as))
	for i, a := range as {
		byID[a.ID], args[i] = a, a.ID
	}
	type paid struct {
		id, appt, amount int64
		tradeNo          string
	}
	var ps []paid
	if err := eachRow(ctx, tx, `SELECT id, appointment_id, amount_cents, trade_no FROM payments
		WHERE appointment_id IN (?`+strings.Repeat(", ?", len(as)-1)+`) AND outcome = 'applied' ORDER BY id`, args,
		func(rows *sql.Rows) error {
			var p paid
			err := rows.Scan(&p.id, &p.appt, &p.amount, &p.tradeNo)
			ps = append(ps, p)
			return err
		}); err != nil || len(ps) == 0 {
		return err
	}
	rs := make([]booking.Refund, len(ps))
	for i, p := range ps {
		a := byID[p.appt]
		c := booking.RefundCase{Paid: p.amount, Reason: reason, StartAt: a.StartAt, At: now}
		if reason == booking.RefundPatientCancel {
			var err error
			if c.Policy, err = slotPolicy(ctx, tx, a.SlotID); err != nil {
				return err
			}
		}
		rs[i] = booking.NewRefund(p.id, p.tradeNo, p.appt, c)
	}
	return s.writeRefunds(ctx, tx, rs, now)
}

// writeRefunds inserts rs inside tx, each unless its payment has one, with
// their audit entries and the jobs of those with something to pay back.
func (s *Store) writeRefunds(ctx context.Context, tx *sql.Tx, rs []booking.Refund, now time.Time) error {
	var es []booking.AuditEntry
	var ns []booking.Notification
	for _, r := range rs {
		err := tx.QueryRowContext(ctx, `INSERT INTO refunds (payment_id, appointment_id, amount_cents, paid_cents, reason, state,
				created_at, updated_at, settled_at)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8) ON CONFLICT (payment_id) DO NOTHING RETURNING id`,
			r.PaymentID, r.AppointmentID, r.AmountCents, r.PaidCents, r.Reason, r.State, ts(now), nullTS(r.SettledAt)).Scan(&r.ID)
		if errors.Is(err, sql.ErrNoRows) {
			continue // refunded already
		}
		if err != nil {
			return err
		}
		es = append(es, booking.AuditRefundChange(ctx, now, booking.RefundChange{Action: "request", Refund: r}))
		if r.State == booking.RefundRequested {
			ns = append(ns, booking.Notification{Kind: booking.NotifyRefundDue, AppointmentID: r.AppointmentID, RefundID: r.ID})
		}
	}
	if err := writeAudit(ctx, tx, es...); err != nil {
		return err
	}
	return s.notify(ctx, tx, ns)
}

// GetRefund returns one refund.
func (s *Store) GetRefund(ctx context.Context, id int64) (booking.Refund, error) {
	r, err := scanRefund(s.reader.QueryRowContext(ctx, `SELECT `+refundCols+refundFrom+` WHERE r.id = ?`, id))
	return r, mapErr(err, "refund")
}

// ListRefunds lists the refunds in states, newest first, a page at a time.
func (s *Store) ListRefunds(ctx context.Context, states []string, p booking.Page) ([]booking.Refund, error) {
	q := `SELECT ` + refundCols + refundFrom + ` WHERE (?1 = 0 OR r.id < ?1)`
	args := []any{p.After}
	if len(states) > 0 {
		q += ` AND r.state IN (?` + strings.Repeat(", ?", len(states)-1) + `)`
		for _, st := range states {
			args = append(args, st)
		}
	}
	q += ` ORDER BY r.id DESC`
	if p.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, p.Limit)
	}
	return s.refunds(ctx, q, args...)
}

// AppointmentRefunds lists an appointment's refunds, newest first.
func (s *Store) AppointmentRefunds(ctx context.Context, appointmentID int64) ([]booking.Refund, error) {
	return s.refunds(ctx, `SELECT `+refundCols+refundFrom+` WHERE r.appointment_id = ? ORDER BY r.id DESC`, appointmentID)
}

func (s *Store) refunds(ctx context.Context, q string, args ...any) ([]booking.Refund, error) {
	out := []booking.Refund{}
	err := eachRow(ctx, s.reader, q, args, func(rows *sql.Rows) error {
		r, err := scanRefund(rows)
		out = append(out, r)
		return err
	})
	return out, mapErr(err, "")
}

// getRefund reads refund id inside tx (the write transaction is the lock).
func getRefund(ctx context.Context, tx *sql.Tx, id int64) (booking.Refund, error) {
	r, err := scanRefund(tx.QueryRowContext(ctx, `SELECT `+refundCols+refundFrom+` WHERE r.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, booking.NotFound("refund")
	}
	return r, err
}

// SettleRefund records the provider's answer to one attempt
// (booking.SettleRefund).
func (s *Store) SettleRefund(ctx context.Context, o booking.RefundOutcome, now time.Time) (booking.Refund, error) {
	now = micro(now)
	var out booking.Refund
	err := s.write(ctx, func(tx *sql.Tx) error {
		before, err := getRefund(ctx, tx, o.ID)
		if err != nil {
			return err
		}
		r, noop := booking.SettleRefund(before, o, now)
		out = r
		if noop {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE refunds SET state = ?2, provider_ref = NULLIF(?3, ''), failure = NULLIF(?4, ''),
			attempts = ?5, updated_at = ?6, settled_at = ?7 WHERE id = ?1`,
			r.ID, r.State, r.ProviderRef, r.Failure, r.Attempts, ts(now), nullTS(r.SettledAt)); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditRefundChange(ctx, now, booking.RefundChange{Action: "settle", Before: &before, Refund: r})); err != nil {
			return err
		}
		if r.State != booking.RefundSucceeded {
			return nil
		}
		// A payment that could not be applied is settled with it.
		if _, err := tx.ExecContext(ctx, `UPDATE payments SET refunded_at = ?2, refund_ref = ?3
			WHERE id = ?1 AND outcome = 'needs-refund' AND refunded_at IS NULL`, r.PaymentID, ts(now), r.ProviderRef); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyRefunded, AppointmentID: r.AppointmentID, RefundID: r.ID}})
	})
	return out, mapErr(err, "refund")
}

// RetryRefund makes a failed refund requested again, with its job.
func (s *Store) RetryRefund(ctx context.Context, id int64, now time.Time) (booking.Refund, error) {
	now = micro(now)
	var out booking.Refund
	err := s.write(ctx, func(tx *sql.Tx) error {
		before, err := getRefund(ctx, tx, id)
		if err != nil {
			return err
		}
		r, err := booking.RetryRefund(before, now)
		if err != nil {
			return err
		}
		out = r
		if _, err := tx.ExecContext(ctx, `UPDATE refunds SET state = ?2, updated_at = ?3 WHERE id = ?1`, r.ID, r.State, ts(now)); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditRefundChange(ctx, now, booking.RefundChange{Action: "retry", Before: &before, Refund: r})); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyRefundDue, AppointmentID: r.AppointmentID, RefundID: r.ID}})
	})
	return out, mapErr(err, "refund")
}

// RefundBasis reads appointment appointmentID's applied payment (0: none)
// and its slot's policy.
func (s *Store) RefundBasis(ctx context.Context, appointmentID int64) (int64, booking.Policy, error) {
	var paid, slotID int64
	err := s.reader.QueryRowContext(ctx, `SELECT a.slot_id, coalesce((SELECT sum(p.amount_cents) FROM payments p
		WHERE p.appointment_id = a.id AND p.outcome = 'applied'), 0) FROM appointments a WHERE a.id = ?`, appointmentID).Scan(&slotID, &paid)
	if err != nil {
		return 0, booking.Policy{}, mapErr(err, "appointment")
	}
	p, err := slotPolicy(ctx, s.reader, slotID)
	return paid, p, mapErr(err, "")
}
