package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// ConfirmPayment records a provider's payment (received now) for a HELD
// appointment; see Store.ConfirmPayment. The caller has authenticated the
// provider (auth.VerifyPayment).
func (s *Service) ConfirmPayment(ctx context.Context, p booking.Payment) (booking.PaymentResult, error) {
	now := s.now()
	if p.ReceivedAt.IsZero() {
		p.ReceivedAt = now
	}
	res, err := bounded(s, ctx, func(ctx context.Context) (booking.PaymentResult, error) { return s.store.ConfirmPayment(ctx, p, now) })
	switch {
	case err != nil && res.Appointment.Status == booking.StatusExpired:
		// A late payment expires the hold it came too late for (if the
		// expiry job had not yet): its place is free again.
		s.released(res.Appointment)
	case err == nil && !res.Duplicate:
		// HELD became BOOKED: the place stays taken, but what this
		// instance remembers of the slot is stale.
		s.slotChanged(res.Appointment.SlotID, res.Appointment.DoctorID)
	}
	return res, err
}

// MarkRefunded settles a needs-refund payment with the provider's refund
// reference (see Store.MarkRefunded).
func (s *Service) MarkRefunded(ctx context.Context, tradeNo, ref string) (booking.Payment, error) {
	if ref == "" || len(ref) > booking.MaxRefundRefLen {
		return booking.Payment{}, booking.Errorf(booking.CodeInvalidRequest, "the refund reference must be 1 to %d characters", booking.MaxRefundRefLen)
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Payment, error) {
		return s.store.MarkRefunded(ctx, tradeNo, ref, s.now())
	})
}
