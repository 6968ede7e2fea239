package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

const refundColumns = `r.id, r.appointment_id, r.payment_id, p.trade_no, r.amount_cents, r.paid_cents, r.reason, r.state,
	coalesce(r.provider_ref, ''), coalesce(r.failure, ''), r.attempts, r.created_at, r.updated_at, r.settled_at`

// refundFrom joins a refund's payment, for its trade number.
const refundFrom = ` FROM refunds r JOIN payments p ON p.id = r.payment_id`

func scanRefund(row pgx.Row) (booking.Refund, error) {
	var r booking.Refund
	err := row.Scan(&r.ID, &r.AppointmentID, &r.PaymentID, &r.TradeNo, &r.AmountCents, &r.PaidCents, &r.Reason, &r.State,
		&r.ProviderRef, &r.Failure, &r.Attempts, &r.CreatedAt, &r.UpdatedAt, &r.SettledAt)
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	if r.SettledAt != nil {
		t := r.SettledAt.UTC()
		r.SettledAt = &t
	}
	return r, err
}

// sqlInsertRefund writes a refund unless its payment has one: the unique
// payment is what makes a second cancel (or any race) refund nothing.
const sqlInsertRefund = `INSERT INTO refunds (payment_id, appointment_id, amount_cents, paid_cents, reason, state,
		created_at, updated_at, settled_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) ON CONFLICT ON CONSTRAINT refunds_payment_key DO NOTHING RETURNING id`

// sqlPaid reads the applied payments of appointments, each appointment's
// probed apart (queryGenericIn: every cancel reads it).
const sqlPaid = `SELECT p.id, p.appointment_id, p.amount_cents, p.trade_no FROM unnest($1::bigint[]) AS k(appt),
	LATERAL (SELECT * FROM payments p WHERE p.appointment_id = k.appt AND p.outcome = 'applied' OFFSET 0) p ORDER BY p.id`

// refundPaid writes, inside tx, the refunds of the applied payments of
// appointments as (just given back for reason at now), with their audit
// entries and jobs (booking.NotifyRefundDue). A patient's own cancel reads
// the slot's policy for the amount (booking.RefundAmount).
func (s *Store) refundPaid(ctx context.Context, tx pgx.Tx, as []booking.Appointment, reason string, now time.Time) error {
	if len(as) == 0 {
		return nil
	}
	byID := make(map[int64]booking.Appointment, len(as))
	ids := make([]int64, len(as))
	for i, a := range as {
		byID[a.ID], ids[i] = a, a.ID
	}
	type paid struct {
		id, appt, amount int64
		tradeNo          string
	}
	var ps []paid
	err := queryGenericIn(ctx, tx, func(r pgx.Rows) error {
		var p paid
		err := r.Scan(&p.id, &p.appt, &p.amount, &p.tradeNo)
		ps = append(ps, p)
		return err
	}, sqlPaid, ids)
	if err != nil || len(ps) == 0 {
		return err
	}
	rs := make([]booking.Refund, len(ps))
	for i, p := range ps {
		a := byID[p.appt]
		c := booking.RefundCase{Paid: p.amount, Reason: reason, StartAt: a.StartAt, At: now}
		if reason == booking.RefundPatientCancel {
			if c.Policy, err = scanPolicy(tx.QueryRow(ctx, sqlSlotPolicy, a.SlotID)); err != nil {
				return err
			}
		}
		rs[i] = booking.NewRefund(p.id, p.tradeNo, p.appt, c)
	}
	return s.writeRefunds(ctx, tx, rs, now)
}

// writeRefunds inserts rs inside tx, each unless its payment has one, with
// their audit entries and the jobs of those with something to pay back.
func (s *Store) writeRefunds(ctx context.Context, tx pgx.Tx, rs []booking.Refund, now time.Time) error {
	var es []booking.AuditEntry
	var ns []booking.Notification
	for _, r := range rs {
		err := tx.QueryRow(ctx, sqlInsertRefund, r.PaymentID, r.AppointmentID, r.AmountCents, r.PaidCents, r.Reason, r.State,
			now, r.SettledAt).Scan(&r.ID)
		if errors.Is(err, pgx.ErrNoRows) {
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
	r, err := scanRefund(s.pool.QueryRow(ctx, `SELECT `+refundColumns+refundFrom+` WHERE r.id = $1`, id))
	return r, translate(err, "refund")
}

// ListRefunds lists the refunds in states, newest first, a page at a time.
func (s *Store) ListRefunds(ctx context.Context, states []string, p booking.Page) ([]booking.Refund, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+refundColumns+refundFrom+`
		WHERE (coalesce(cardinality($1::text[]), 0) = 0 OR r.state = ANY($1)) AND ($2::bigint = 0 OR r.id < $2)
		ORDER BY r.id DESC LIMIT NULLIF($3, 0)`, states, p.After, p.Limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Refund, error) { return scanRefund(r) })
	return out, translate(err, "")
}

// AppointmentRefunds lists an appointment's refunds, newest first.
func (s *Store) AppointmentRefunds(ctx context.Context, appointmentID int64) ([]booking.Refund, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+refundColumns+refundFrom+` WHERE r.appointment_id = $1 ORDER BY r.id DESC`, appointmentID)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Refund, error) { return scanRefund(r) })
	return out, translate(err, "")
}

// lockRefund reads refund id under its row's lock.
func lockRefund(ctx context.Context, tx pgx.Tx, id int64) (booking.Refund, error) {
	r, err := scanRefund(tx.QueryRow(ctx, `SELECT `+refundColumns+refundFrom+` WHERE r.id = $1 FOR UPDATE OF r`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return r, booking.NotFound("refund")
	}
	return r, err
}

// SettleRefund records the provider's answer to one attempt under the
// refund's lock (booking.SettleRefund).
func (s *Store) SettleRefund(ctx context.Context, o booking.RefundOutcome, now time.Time) (booking.Refund, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out booking.Refund
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := lockRefund(ctx, tx, o.ID)
		if err != nil {
			return err
		}
		r, noop := booking.SettleRefund(before, o, now)
		out = r
		if noop {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE refunds SET state = $2, provider_ref = NULLIF($3, ''), failure = NULLIF($4, ''),
			attempts = $5, updated_at = $6, settled_at = $7 WHERE id = $1`,
			r.ID, r.State, r.ProviderRef, r.Failure, r.Attempts, now, r.SettledAt); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditRefundChange(ctx, now, booking.RefundChange{Action: "settle", Before: &before, Refund: r})); err != nil {
			return err
		}
		if r.State != booking.RefundSucceeded {
			return nil
		}
		// A payment that could not be applied is settled with it.
		if _, err := tx.Exec(ctx, `UPDATE payments SET refunded_at = $2, refund_ref = $3
			WHERE id = $1 AND outcome = 'needs-refund' AND refunded_at IS NULL`, r.PaymentID, now, r.ProviderRef); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyRefunded, AppointmentID: r.AppointmentID, RefundID: r.ID}})
	})
	return out, translate(err, "refund")
}

// RetryRefund makes a failed refund requested again, with its job.
func (s *Store) RetryRefund(ctx context.Context, id int64, now time.Time) (booking.Refund, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out booking.Refund
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		before, err := lockRefund(ctx, tx, id)
		if err != nil {
			return err
		}
		r, err := booking.RetryRefund(before, now)
		if err != nil {
			return err
		}
		out = r
		if _, err := tx.Exec(ctx, `UPDATE refunds SET state = $2, updated_at = $3 WHERE id = $1`, r.ID, r.State, now); err != nil {
			return err
		}
		if err := writeAudit(ctx, tx, booking.AuditRefundChange(ctx, now, booking.RefundChange{Action: "retry", Before: &before, Refund: r})); err != nil {
			return err
		}
		return s.notify(ctx, tx, []booking.Notification{{Kind: booking.NotifyRefundDue, AppointmentID: r.AppointmentID, RefundID: r.ID}})
	})
	return out, translate(err, "refund")
}

// RefundBasis reads appointment appointmentID's applied payment (0: none)
// and its slot's policy.
func (s *Store) RefundBasis(ctx context.Context, appointmentID int64) (int64, booking.Policy, error) {
	var paid, slotID int64
	err := s.pool.QueryRow(ctx, `SELECT a.slot_id, coalesce((SELECT sum(p.amount_cents) FROM payments p
		WHERE p.appointment_id = a.id AND p.outcome = 'applied'), 0) FROM appointments a WHERE a.id = $1`, appointmentID).Scan(&slotID, &paid)
	if err != nil {
		return 0, booking.Policy{}, translate(err, "appointment")
	}
	p, err := scanPolicy(s.pool.QueryRow(ctx, sqlSlotPolicy, slotID))
	return paid, p, translate(err, "")
}
