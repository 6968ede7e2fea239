package httpapi

import (
	"io"
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// notificationAnswer is the answer to a provider's verified notification:
// Outcome is "applied", "duplicate", a refusal's code (the payment is
// recorded and refunded: the provider must not send it again), "refund",
// "refund-reversed" or "ignored".
type notificationAnswer struct {
	Received bool   `json:"received"`
	Outcome  string `json:"outcome"`
}

// stripeWebhook takes Stripe's events, authenticated by the
// Stripe-Signature header (verified by the provider with stripe-go).
func (s *server) stripeWebhook(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.providerNotification(w, r, service.ProviderStripe)
}

// wechatNotify takes WeChat Pay's notifications, authenticated by the
// Wechatpay-* headers (the platform key's signature, a fresh timestamp, a
// nonce not seen before).
func (s *server) wechatNotify(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	return s.providerNotification(w, r, service.ProviderWeChat)
}

// providerNotification takes a notification of the provider named
// provider. It is authenticated by the provider's signature, not a token;
// the Service verifies and applies it. Any 2xx stops the provider's
// retries, so a payment recorded but refused (late, mismatched,
// conflicting) answers 200 with its code: it is kept and refunded.
func (s *server) providerNotification(w http.ResponseWriter, r *http.Request, provider string) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyError(err)
	}
	res, err := s.svc.PaymentNotification(r.Context(), provider, r.Header, body)
	out := notificationAnswer{Received: true, Outcome: "ignored"}
	switch code := booking.ErrorCode(err); {
	case err == nil && res.Payment != nil && res.Payment.Duplicate:
		out.Outcome = "duplicate"
	case err == nil && res.Payment != nil:
		out.Outcome = "applied"
	case err == nil && res.Reversed:
		// Recorded as paid back, yet the provider failed it: a person must act.
		s.log.Warn("the payment provider failed a refund recorded as succeeded: settle it at the provider", "provider", provider, "refund", res.Refund.ID, "providerRef", res.Refund.ProviderRef)
		out.Outcome = "refund-reversed"
	case err == nil && res.Refund != nil:
		out.Outcome = "refund"
	case code == booking.CodePaymentRejected || code == booking.CodePaymentConflict:
		s.log.Info("payment recorded but not applied", "provider", provider, "code", code)
		out.Outcome = string(code)
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
