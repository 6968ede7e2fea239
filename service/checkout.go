package service

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
)

// Provider names for PaymentNotification: the endpoints' providers.
const (
	ProviderSignedCallback = payments.SignedCallback
	ProviderStripe         = payments.StripeName
	ProviderWeChat         = payments.WeChatName
)

// MaxTradeNoLen bounds a trade number (a provider's payment id).
const MaxTradeNoLen = payments.MaxPaymentIDLen

// ValidTradeNo accepts a provider's payment id (payments.ValidPaymentID):
// 1 to MaxTradeNoLen visible ASCII characters.
func ValidTradeNo(t string) bool { return payments.ValidPaymentID(t) }

// ProviderName names the configured payment provider ("" for none).
func (s *Service) ProviderName() string {
	if s.payments == nil {
		return ""
	}
	return s.payments.Name()
}

// CheckoutTo is where a checkout's patient pays from: ReturnURL, where
// the provider sends them back, and PayerID, their account at the
// provider when the app they pay in knows it (WeChat Pay's openid, for a
// mini-program's JSAPI payment).
type CheckoutTo struct {
	ReturnURL string
	PayerID   string
}

// MaxPayerIDLen bounds CheckoutTo.PayerID (an openid is 28 characters).
const MaxPayerIDLen = payments.MaxPaymentIDLen

// Checkout creates the payment of patientID's HELD appointment at the
// provider and answers where to send them (payments.Checkout): the fee in
// the clinic's currency, due by the hold's deadline, the patient coming
// back to to.ReturnURL. Another patient's appointment is not found; one
// that is not HELD, or whose hold has passed, is refused. The provider
// makes a repeat answer the same payment (payments.CheckoutIdempotencyKey).
func (s *Service) Checkout(ctx context.Context, appointmentID, patientID int64, to CheckoutTo) (payments.Checkout, error) {
	if to.PayerID != "" && !payments.ValidPaymentID(to.PayerID) {
		return payments.Checkout{}, booking.Errorf(booking.CodeInvalidRequest, "payerId must be 1 to %d visible ASCII characters", MaxPayerIDLen)
	}
	a, err := s.Appointment(ctx, appointmentID, patientID)
	if err != nil {
		return payments.Checkout{}, err
	}
	if a.Status != booking.StatusHeld || a.HoldExpiresAt == nil || !s.now().Before(*a.HoldExpiresAt) {
		return payments.Checkout{}, booking.Errorf(booking.CodeInvalidTransition, "the appointment is %s: only a held appointment is paid, before its hold expires", a.Status)
	}
	sl, err := bounded(s, ctx, func(ctx context.Context) (booking.Slot, error) { return s.store.GetSlot(ctx, a.SlotID) })
	if err != nil {
		return payments.Checkout{}, err
	}
	if s.payments == nil {
		return payments.Checkout{}, booking.Errorf(booking.CodeUnavailable, "no payment provider is configured")
	}
	pctx, cancel := context.WithTimeout(ctx, providerTimeout)
	defer cancel()
	c, err := s.payments.Checkout(pctx, payments.CheckoutRequest{
		AppointmentID: a.ID, Amount: sl.FeeCents, Currency: s.currency,
		// No personal data leaves for the provider: the appointment's number only.
		Description: "Appointment " + strconv.FormatInt(a.ID, 10), ReturnURL: to.ReturnURL, ExpiresAt: *a.HoldExpiresAt,
		PayerID: to.PayerID,
	})
	if err != nil {
		e := booking.Errorf(booking.CodeUnavailable, "the payment provider did not answer; try again")
		e.Err = err
		return payments.Checkout{}, e
	}
	return c, nil
}

// NotificationResult is what a provider's notification did: the payment
// it recorded (Payment set), or the refund it settled (Refund set), or
// nothing (an event slotd does not act on).
type NotificationResult struct {
	Payment *booking.PaymentResult
	Refund  *booking.Refund
	// Reversed: the provider reports as failed a refund recorded as
	// succeeded (Stripe refunds can fail days later). The record stays;
	// staff settle it at the provider (logged and counted, never silent).
	Reversed bool
}

// PaymentNotification verifies a notification of the provider named
// provider (its headers and raw body) and applies it: a payment through
// ConfirmPayment, the same path as the signed callback's (a late or
// mismatched one is recorded and refunded), a refund's outcome through
// Store.SettleRefund (a settled refund is left as it is). The same
// notification again changes nothing. A notification for a provider that
// is not the configured one (payments.Notifies), or that does not verify,
// is CodeBadSignature.
func (s *Service) PaymentNotification(ctx context.Context, provider string, h http.Header, body []byte) (NotificationResult, error) {
	res, err := s.paymentNotification(ctx, provider, h, body)
	if obs, ok := s.observer.(PaymentObserver); ok {
		obs.PaymentNotified(provider, notificationOutcome(res, err))
	}
	return res, err
}

// PaymentObserver is what an Options.Observer may also implement to count
// the providers' notifications (cmd/slotd's metrics do).
type PaymentObserver interface {
	// PaymentNotified counts one notification to provider's endpoint by
	// outcome: applied, duplicate, rejected, refund, refund-reversed,
	// ignored, unverified, invalid or error.
	PaymentNotified(provider, outcome string)
}

// notificationOutcome names what a notification did, for the metrics.
func notificationOutcome(res NotificationResult, err error) string {
	switch code := booking.ErrorCode(err); {
	case err == nil && res.Payment != nil && res.Payment.Duplicate:
		return "duplicate"
	case err == nil && res.Payment != nil:
		return "applied"
	case err == nil && res.Reversed:
		return "refund-reversed"
	case err == nil && res.Refund != nil:
		return "refund"
	case err == nil:
		return "ignored"
	case code == booking.CodePaymentRejected || code == booking.CodePaymentConflict:
		return "rejected"
	case code == booking.CodeBadSignature:
		return "unverified"
	case code == booking.CodeInvalidRequest || code == booking.CodeNotFound:
		return "invalid"
	}
	return "error"
}

func (s *Service) paymentNotification(ctx context.Context, provider string, h http.Header, body []byte) (NotificationResult, error) {
	if !payments.Notifies(s.payments, provider) {
		return NotificationResult{}, booking.Errorf(booking.CodeBadSignature, "%s notifications are not accepted: another payment provider is configured", provider)
	}
	n, err := s.payments.Notification(h, body, s.now())
	var berr *booking.Error
	switch {
	case errors.As(err, &berr):
		return NotificationResult{}, berr
	case errors.Is(err, payments.ErrUnverified):
		e := booking.Errorf(booking.CodeBadSignature, "the notification's signature is missing, does not match the body or is too old")
		e.Err = err
		return NotificationResult{}, e
	case err != nil:
		e := booking.Errorf(booking.CodeInvalidRequest, "the notification cannot be read")
		e.Err = err
		return NotificationResult{}, e
	}
	ctx = booking.WithActor(ctx, booking.Actor{Role: booking.ActorProvider, ID: provider})
	switch {
	case n.Paid != nil:
		p := n.Paid
		if !payments.ValidPaymentID(p.PaymentID) || p.AppointmentID <= 0 || p.AppointmentID > booking.MaxID || p.Amount <= 0 || p.Amount > booking.MaxFeeCents {
			return NotificationResult{}, booking.Errorf(booking.CodeInvalidRequest, "the notification's payment has no valid id, appointment or amount")
		}
		if p.Currency != s.currency {
			return NotificationResult{}, booking.Errorf(booking.CodePaymentRejected, "the payment is in %s, the clinic's fees are in %s", p.Currency, s.currency)
		}
		res, err := s.ConfirmPayment(ctx, booking.Payment{TradeNo: p.PaymentID, AppointmentID: p.AppointmentID, AmountCents: p.Amount})
		return NotificationResult{Payment: &res}, err
	case n.Refund != nil:
		u := n.Refund
		o := booking.RefundOutcome{ID: u.RefundID, ProviderRef: u.ProviderRef, Failure: u.Failure, Final: u.Failure != ""}
		r, err := bounded(s, ctx, func(ctx context.Context) (booking.Refund, error) { return s.store.SettleRefund(ctx, o, s.now()) })
		if err != nil {
			return NotificationResult{}, err
		}
		r = s.oneWithCurrency(r)
		return NotificationResult{Refund: &r, Reversed: u.Failure != "" && r.State == booking.RefundSucceeded}, nil
	}
	return NotificationResult{}, nil
}
