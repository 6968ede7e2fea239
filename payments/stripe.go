package payments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"
)

// Stripe takes payments with Stripe Checkout: a Checkout Session per held
// appointment, confirmed by the checkout.session.completed webhook event,
// paid back with the Refund API. Payments are identified by their
// PaymentIntent id (slotd's trade number).
type Stripe struct {
	client *stripe.Client
	// webhookSecret is the endpoint's signing secret (whsec_...).
	webhookSecret string
	now           func() time.Time
}

// StripeConfig configures NewStripe: SecretKey (sk_...) authenticates the
// API calls, WebhookSecret verifies the webhook events, and APIURL, when
// set, replaces https://api.stripe.com (a test's fake).
type StripeConfig struct {
	SecretKey     string
	WebhookSecret string
	APIURL        string
	HTTPClient    *http.Client
	// Now is the clock of the sessions' expiry; time.Now when nil.
	Now func() time.Time
}

// Stripe's documented bounds of a Checkout Session's expires_at: at least
// 30 minutes and at most 24 hours after its creation.
const (
	StripeMinExpiry = 30 * time.Minute
	StripeMaxExpiry = 24 * time.Hour
)

// StripeTolerance is how old a webhook event's signed timestamp may be
// (stripe-go's default, Stripe's documented recommendation).
const StripeTolerance = webhook.DefaultTolerance

// metaAppointment and metaRefund name slotd's ids in the metadata of
// Stripe's objects.
const (
	metaAppointment = "slotd_appointment_id"
	metaRefund      = "slotd_refund_id"
)

// NewStripe is the Stripe provider of c.
func NewStripe(c StripeConfig) (*Stripe, error) {
	if c.SecretKey == "" || c.WebhookSecret == "" {
		return nil, errors.New("payments: stripe needs its secret key and its webhook signing secret")
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 20 * time.Second}
	}
	// No retries inside stripe-go: the refund job retries with backoff,
	// and a checkout is retried by the patient with the same key.
	cfg := &stripe.BackendConfig{HTTPClient: hc, MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	if c.APIURL != "" {
		cfg.URL = stripe.String(strings.TrimSuffix(c.APIURL, "/"))
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	backends := &stripe.Backends{API: stripe.GetBackendWithConfig(stripe.APIBackend, cfg)}
	return &Stripe{client: stripe.NewClient(c.SecretKey, stripe.WithBackends(backends)), webhookSecret: c.WebhookSecret, now: now}, nil
}

// StripeName names the Stripe provider, whose events are POSTed to
// /api/payments/stripe.
const StripeName = "stripe"

// Name is StripeName.
func (*Stripe) Name() string { return StripeName }

// stripeExpiry is when a Checkout Session for a hold ending at deadline,
// created at now, expires: the deadline, but never sooner than Stripe's
// minimum (a shorter hold's session outlives it: a payment after the
// deadline is recorded late and refunded in full) nor later than its
// maximum. A clamped expiry is rounded up to the minute, so that the
// patient pressing Pay again within it reaches the same session.
func stripeExpiry(deadline, now time.Time) time.Time {
	if lo := now.Add(StripeMinExpiry); deadline.Before(lo) {
		return ceilMinute(lo)
	}
	if hi := now.Add(StripeMaxExpiry); deadline.After(hi) {
		return hi.Truncate(time.Minute)
	}
	return deadline
}

func ceilMinute(t time.Time) time.Time {
	if r := t.Truncate(time.Minute); !r.Equal(t) {
		return r.Add(time.Minute)
	}
	return t
}

// Checkout creates the Checkout Session of req, once per request (the
// idempotency key: the appointment and a digest of the parameters), and
// answers its URL.
func (p *Stripe) Checkout(ctx context.Context, req CheckoutRequest) (Checkout, error) {
	if req.Amount <= 0 || req.ReturnURL == "" {
		return Checkout{}, fmt.Errorf("payments: checkout of appointment %d: nothing to pay or nowhere to return", req.AppointmentID)
	}
	exp := stripeExpiry(req.ExpiresAt, p.now())
	id := strconv.FormatInt(req.AppointmentID, 10)
	ret := req.ReturnURL
	params := &stripe.CheckoutSessionCreateParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModePayment)),
		ClientReferenceID: stripe.String(id),
		ExpiresAt:         stripe.Int64(exp.Unix()),
		SuccessURL:        stripe.String(ret),
		CancelURL:         stripe.String(ret),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(strings.ToLower(req.Currency)),
				UnitAmount:  stripe.Int64(req.Amount),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(req.Description)},
			},
		}},
		Metadata:          map[string]string{metaAppointment: id},
		PaymentIntentData: &stripe.CheckoutSessionCreatePaymentIntentDataParams{Metadata: map[string]string{metaAppointment: id}},
	}
	params.SetIdempotencyKey(CheckoutIdempotencyKey(req, exp))
	s, err := p.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return Checkout{}, fmt.Errorf("payments: stripe checkout of appointment %d: %w", req.AppointmentID, err)
	}
	if s.URL == "" {
		return Checkout{}, fmt.Errorf("payments: stripe checkout of appointment %d: the session has no URL", req.AppointmentID)
	}
	return Checkout{RedirectURL: s.URL, ExpiresAt: time.Unix(s.ExpiresAt, 0)}, nil
}

// Refund creates a Refund of the PaymentIntent req.TradeNo, keyed by
// slotd's refund id, and answers Stripe's refund id. A refund Stripe
// answers "failed" or "canceled" is an error (retried, then staff's).
func (p *Stripe) Refund(ctx context.Context, req RefundRequest) (string, error) {
	if req.RefundID <= 0 || req.Amount <= 0 || req.TradeNo == "" {
		return "", fmt.Errorf("payments: refund %d of %d: nothing to refund", req.RefundID, req.Amount)
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(req.TradeNo),
		Amount:        stripe.Int64(req.Amount),
		Metadata:      map[string]string{metaRefund: strconv.FormatInt(req.RefundID, 10)},
	}
	params.SetIdempotencyKey(req.IdempotencyKey())
	r, err := p.client.V1Refunds.Create(ctx, params)
	if err != nil {
		return "", fmt.Errorf("payments: stripe refund %d: %w", req.RefundID, err)
	}
	if r.Status == stripe.RefundStatusFailed || r.Status == stripe.RefundStatusCanceled {
		return "", fmt.Errorf("payments: stripe refund %d is %s (%s)", req.RefundID, r.Status, r.FailureReason)
	}
	return r.ID, nil
}

// Notification verifies an event with stripe-go (the Stripe-Signature
// header over the raw body, signed at most StripeTolerance before now) and
// parses the events slotd acts on: a paid Checkout Session (completed, or
// its delayed payment succeeded) and a refund's outcome.
func (p *Stripe) Notification(h http.Header, body []byte, _ time.Time) (Notification, error) {
	if err := stripeVerify(body, h.Get("Stripe-Signature"), p.webhookSecret); err != nil {
		return Notification{}, err
	}
	ev := stripe.Event{}
	if err := json.Unmarshal(body, &ev); err != nil || ev.Data == nil {
		return Notification{}, fmt.Errorf("payments: the stripe event is not an event: %v", err)
	}
	switch ev.Type {
	case "checkout.session.completed", "checkout.session.async_payment_succeeded":
		var s stripe.CheckoutSession
		if err := json.Unmarshal(ev.Data.Raw, &s); err != nil {
			return Notification{}, fmt.Errorf("payments: stripe event %s: %w", ev.ID, err)
		}
		if s.PaymentStatus != stripe.CheckoutSessionPaymentStatusPaid || s.PaymentIntent == nil {
			return Notification{}, nil // paid later: async_payment_succeeded follows
		}
		appt, err := strconv.ParseInt(s.ClientReferenceID, 10, 64)
		if err != nil {
			return Notification{}, fmt.Errorf("payments: stripe session %s has no slotd appointment", s.ID)
		}
		return Notification{Paid: &Paid{AppointmentID: appt, Amount: s.AmountTotal,
			Currency: strings.ToUpper(string(s.Currency)), PaymentID: s.PaymentIntent.ID}}, nil
	case "refund.created", "refund.updated", "refund.failed":
		var r stripe.Refund
		if err := json.Unmarshal(ev.Data.Raw, &r); err != nil {
			return Notification{}, fmt.Errorf("payments: stripe event %s: %w", ev.ID, err)
		}
		return stripeRefundUpdate(r), nil
	case "charge.refunded":
		var c stripe.Charge
		if err := json.Unmarshal(ev.Data.Raw, &c); err != nil {
			return Notification{}, fmt.Errorf("payments: stripe event %s: %w", ev.ID, err)
		}
		if c.Refunds != nil {
			for _, r := range c.Refunds.Data {
				if n := stripeRefundUpdate(*r); n.Refund != nil {
					return n, nil
				}
			}
		}
	}
	return Notification{}, nil
}

// stripeRefundUpdate is the outcome of Stripe's refund r, when it is one
// slotd asked for and it is settled (succeeded, failed or canceled).
func stripeRefundUpdate(r stripe.Refund) Notification {
	id, err := strconv.ParseInt(r.Metadata[metaRefund], 10, 64)
	if err != nil || id <= 0 {
		return Notification{}
	}
	switch r.Status {
	case stripe.RefundStatusSucceeded:
		return Notification{Refund: &RefundUpdate{RefundID: id, ProviderRef: r.ID}}
	case stripe.RefundStatusFailed, stripe.RefundStatusCanceled:
		return Notification{Refund: &RefundUpdate{RefundID: id, ProviderRef: r.ID,
			Failure: fmt.Sprintf("stripe refund %s is %s (%s)", r.ID, r.Status, r.FailureReason)}}
	}
	return Notification{}
}

// stripeVerify checks the Stripe-Signature header with stripe-go: the
// HMAC of the raw body, signed at most StripeTolerance ago (by the wall
// clock: the signer's and ours).
func stripeVerify(body []byte, header, secret string) error {
	if _, err := webhook.ConstructEventWithOptions(body, header, secret,
		webhook.ConstructEventOptions{Tolerance: StripeTolerance, IgnoreAPIVersionMismatch: true}); err != nil {
		return fmt.Errorf("%w: %v", ErrUnverified, err)
	}
	return nil
}
