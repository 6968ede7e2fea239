package service

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
)

// RefundObserver is what an Options.Observer may also implement to count
// refunds (cmd/slotd's metrics do).
type RefundObserver interface {
	// Refunded counts one attempt of a refund for reason by outcome
	// (booking.RefundSucceeded, booking.RefundFailed, or "retry": an
	// attempt that failed and will be retried) and the amount (minor
	// units) paid back when it succeeded.
	Refunded(reason, outcome string, amount int64)
}

// RefundRetry is the outcome of an attempt that failed but will be retried.
const RefundRetry = "retry"

// providerTimeout bounds one call to the payment provider.
const providerTimeout = 30 * time.Second

// Currency is the clinic's ISO 4217 code.
func (s *Service) Currency() string { return s.currency }

// withCurrency sets the clinic's currency on rs, in place (stores keep
// none per row).
func (s *Service) withCurrency(rs []booking.Refund) {
	for i := range rs {
		rs[i].Currency = s.currency
	}
}

// oneWithCurrency is r with the clinic's currency.
func (s *Service) oneWithCurrency(r booking.Refund) booking.Refund {
	r.Currency = s.currency
	return r
}

// Refunds lists the refunds in states (every one when empty), newest
// first, a page at a time: the staff's list.
func (s *Service) Refunds(ctx context.Context, states []string, p booking.Page) ([]booking.Refund, error) {
	for _, st := range states {
		if !slices.Contains([]string{booking.RefundRequested, booking.RefundSucceeded, booking.RefundFailed}, st) {
			return nil, booking.Errorf(booking.CodeInvalidRequest, "state must be requested, succeeded or failed")
		}
	}
	rs, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Refund, error) { return s.store.ListRefunds(ctx, states, p) })
	s.withCurrency(rs)
	return rs, err
}

// AppointmentRefunds lists the refunds of one of patientID's appointments
// (any patient's when 0); another patient's appointment is not found.
func (s *Service) AppointmentRefunds(ctx context.Context, appointmentID, patientID int64) ([]booking.Refund, error) {
	if _, err := s.Appointment(ctx, appointmentID, patientID); err != nil {
		return nil, err
	}
	rs, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Refund, error) {
		return s.store.AppointmentRefunds(ctx, appointmentID)
	})
	s.withCurrency(rs)
	return rs, err
}

// RefundQuote is what a patient's cancel of their appointment now would
// pay back, and what was paid (both 0 for an unpaid appointment): what the
// cancel confirmation shows before they confirm.
func (s *Service) RefundQuote(ctx context.Context, appointmentID, patientID int64) (refund, paid int64, err error) {
	a, err := s.Appointment(ctx, appointmentID, patientID)
	if err != nil {
		return 0, 0, err
	}
	type basis struct {
		paid int64
		p    booking.Policy
	}
	b, err := bounded(s, ctx, func(ctx context.Context) (basis, error) {
		paid, p, err := s.store.RefundBasis(ctx, appointmentID)
		return basis{paid, p}, err
	})
	if err != nil {
		return 0, 0, err
	}
	reason := booking.CancelRefundReason(patientID)
	return booking.RefundAmount(booking.RefundCase{Policy: b.p, Paid: b.paid, Reason: reason, StartAt: a.StartAt, At: s.now()}), b.paid, nil
}

// RetryRefund asks the provider again for a failed refund (staff).
func (s *Service) RetryRefund(ctx context.Context, id int64) (booking.Refund, error) {
	r, err := bounded(s, ctx, func(ctx context.Context) (booking.Refund, error) { return s.store.RetryRefund(ctx, id, s.now()) })
	return s.oneWithCurrency(r), err
}

// ProcessRefund makes one attempt of refund id (the refund job): it asks
// the provider, outside any transaction, and records the answer
// (Store.SettleRefund). final says it is the job's last attempt: a refusal
// then fails the refund, for staff to retry. A refund no longer requested
// is left as it is. The provider's refusal is returned, for the job to
// retry with backoff.
func (s *Service) ProcessRefund(ctx context.Context, id int64, final bool) (booking.Refund, error) {
	r, err := bounded(s, ctx, func(ctx context.Context) (booking.Refund, error) { return s.store.GetRefund(ctx, id) })
	if err != nil || r.State != booking.RefundRequested {
		return s.oneWithCurrency(r), err
	}
	var ref string
	perr := errors.New("no payment provider is configured")
	if s.payments != nil {
		pctx, cancel := context.WithTimeout(ctx, providerTimeout)
		ref, perr = s.payments.Refund(pctx, payments.RefundRequest{RefundID: r.ID, TradeNo: r.TradeNo, Amount: r.AmountCents, Currency: s.currency})
		cancel()
	}
	o := booking.RefundOutcome{ID: id, ProviderRef: ref, Final: final}
	if perr != nil {
		o.ProviderRef, o.Failure = "", perr.Error()
	}
	r, err = bounded(s, ctx, func(ctx context.Context) (booking.Refund, error) { return s.store.SettleRefund(ctx, o, s.now()) })
	r = s.oneWithCurrency(r)
	if err != nil {
		return r, err
	}
	if obs, ok := s.observer.(RefundObserver); ok {
		outcome := r.State
		if r.State == booking.RefundRequested {
			outcome = RefundRetry
		}
		amount := int64(0)
		if r.State == booking.RefundSucceeded {
			amount = r.AmountCents
		}
		obs.Refunded(r.Reason, outcome, amount)
	}
	return r, perr
}
