package httpapi

import (
	"io"
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// stripeAnswer is the answer to a verified Stripe event: Outcome is
// "applied", "duplicate", a refusal's code (the payment is recorded and
// refunded: Stripe must not send it again), "refund", "refund-reversed"
// or "ignored".
type stripeAnswer struct {
	Received bool   `json:"received"`
	Outcome  string `json:"outcome"`
}

// stripeWebhook takes Stripe's events. It is authenticated by the
// Stripe-Signature header (verified by the provider with stripe-go), not
// a token; the Service applies the event. Any 2xx stops Stripe's
// retries, so a payment recorded but refused (late, mismatched,
// conflicting) answers 200 with its code: it is kept and refunded.
func (s *server) stripeWebhook(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyError(err)
	}
	res, err := s.svc.PaymentNotification(r.Context(), service.ProviderStripe, r.Header, body)
	out := stripeAnswer{Received: true, Outcome: "ignored"}
	switch code := booking.ErrorCode(err); {
	case err == nil && res.Payment != nil && res.Payment.Duplicate:
		out.Outcome = "duplicate"
	case err == nil && res.Payment != nil:
		out.Outcome = "applied"
	case err == nil && res.Reversed:
		// Recorded as paid back, yet Stripe failed it: a person must act.
		s.log.Warn("stripe failed a refund recorded as succeeded: settle it in the Stripe dashboard", "refund", res.Refund.ID, "providerRef", res.Refund.ProviderRef)
		out.Outcome = "refund-reversed"
	case err == nil && res.Refund != nil:
		out.Outcome = "refund"
	case code == booking.CodePaymentRejected || code == booking.CodePaymentConflict:
		s.log.Info("stripe payment recorded but not applied", "code", code)
		out.Outcome = string(code)
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
