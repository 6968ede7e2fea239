// Package payments is slotd's port to payment providers and its
// implementations (the generic signed gateway, the demo's simulated one,
// Stripe). A provider takes the money for a HELD appointment (Checkout:
// where to send the patient), confirms it through a notification it signs
// (Notification: verified and parsed into the payment fact), and pays it
// back when asked (Refund). The Service only ever calls the interface.
package payments

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/slotd/slotd/booking"
)

// RefundRequest asks a provider to pay back Amount (minor units of
// Currency) of the payment TradeNo. RefundID is slotd's refund id: a
// provider must treat a repeated request with the same RefundID as the
// same refund (idempotent), so a retry after a lost answer never pays
// twice.
type RefundRequest struct {
	RefundID int64  `json:"refundId"`
	TradeNo  string `json:"tradeNo"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// IdempotencyKey is the key a provider dedupes req's retries by.
func (r RefundRequest) IdempotencyKey() string { return fmt.Sprintf("slotd-refund-%d", r.RefundID) }

// Provider is a payment provider as the Service uses it.
type Provider interface {
	// Name names the provider in logs and on staff pages.
	Name() string
	// Checkout creates the payment of a HELD appointment and answers where
	// to send the patient. The same request again must answer the same
	// payment (CheckoutIdempotencyKey); should a second one be paid, it is
	// recorded as paid already and refunded.
	Checkout(ctx context.Context, req CheckoutRequest) (Checkout, error)
	// Notification verifies a notification the provider sent (its headers
	// and raw body, received at now) and parses it. A notification that
	// does not verify is ErrUnverified, never parsed.
	Notification(h http.Header, body []byte, now time.Time) (Notification, error)
	// Refund asks for req and answers the provider's refund id. An error
	// is retried (with backoff) until the attempts run out; the same
	// request again must not pay twice.
	Refund(ctx context.Context, req RefundRequest) (string, error)
	// Statement lists the provider's payments and refunds of the day
	// [from, to) (booking.StatementLine: the trade number, the amount, and
	// for a refund slotd's refund id when the provider carries it and the
	// provider's refund id). A provider whose statement slotd cannot read
	// answers ErrNoStatement.
	Statement(ctx context.Context, from, to time.Time) ([]booking.StatementLine, error)
}

// ErrNoStatement is a provider without a statement slotd reads (the
// signed gateway, the demo's): a day is then reconciled from slotd's own
// records.
var ErrNoStatement = errors.New("payments: the provider has no statement to read")

// CheckoutRequest is the payment of one HELD appointment: Amount in the
// minor units of Currency, a Description the patient sees at the
// provider, ReturnURL where the provider sends them back, and ExpiresAt,
// the hold's deadline, after which the payment must not be taken.
type CheckoutRequest struct {
	AppointmentID int64
	Amount        int64
	Currency      string
	Description   string
	ReturnURL     string
	ExpiresAt     time.Time
	// PayerID is the payer's account at the provider, when the app paying
	// knows it: with WeChat Pay the mini-program user's openid (a JSAPI
	// payment instead of a QR code). Never logged.
	PayerID string
}

// CheckoutIdempotencyKey is the key a provider dedupes a checkout of
// req's appointment by, when it expires at expiresAt: the appointment's id
// and a digest of what the provider is asked (a provider such as Stripe
// refuses a key reused with other parameters, so a request that differs,
// another return URL or a later expiry, is another payment, never an
// error). The same request again answers the same payment.
func CheckoutIdempotencyKey(req CheckoutRequest, expiresAt time.Time) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d|%s|%s|%d|%s", req.Amount, req.Currency, req.ReturnURL, expiresAt.Unix(), req.Description))
	return fmt.Sprintf("slotd-checkout-%d-%x", req.AppointmentID, h[:8])
}

// Checkout is where the patient pays: RedirectURL at the provider, or
// (for a provider slotd does not redirect to) Params to hand to it.
// ExpiresAt is when the provider stops taking the payment (it may be
// later than the hold's deadline: a payment after the deadline is
// recorded as late and refunded).
type Checkout struct {
	RedirectURL string
	Params      map[string]string
	ExpiresAt   time.Time
}

// Notification is one verified notification: a payment (Paid) or a
// refund's outcome at the provider (Refund), or neither for an event slotd
// does not act on (answered 200, so the provider stops sending it).
type Notification struct {
	Paid   *Paid
	Refund *RefundUpdate
}

// Paid is the payment fact: PaymentID (the provider's, slotd's trade
// number) paid Amount minor units of Currency for AppointmentID.
type Paid struct {
	AppointmentID int64
	Amount        int64
	Currency      string
	PaymentID     string
}

// RefundUpdate is the provider's word on slotd's refund RefundID: it
// succeeded as ProviderRef, or it failed (Failure, English).
type RefundUpdate struct {
	RefundID    int64
	ProviderRef string
	Failure     string
}

// ErrUnverified is a notification whose signature or freshness does not
// verify: it is refused and changes nothing.
var ErrUnverified = errors.New("payments: the notification's signature does not verify")

// Notifies reports whether p takes the notifications sent to the endpoint
// of the provider named endpoint: its own, and for the simulated provider
// the signed callback's too (it notifies in that format).
func Notifies(p Provider, endpoint string) bool {
	if p == nil {
		return false
	}
	_, simulated := p.(Simulated)
	return p.Name() == endpoint || (simulated && endpoint == SignedCallback)
}

// Simulated is the demo's provider: payments are simulated by the demo's
// pay page (Checkout sends the patient there), which notifies in the
// signed callback's format, verified with Secret; refunds succeed at once
// with a reference derived from the refund id (so a repeat answers the
// same one).
type Simulated struct {
	Secret []byte
}

// Checkout sends the patient to the demo's pay page.
func (Simulated) Checkout(_ context.Context, req CheckoutRequest) (Checkout, error) {
	return Checkout{RedirectURL: fmt.Sprintf("/appointments/%d/pay", req.AppointmentID), ExpiresAt: req.ExpiresAt}, nil
}

// Notification verifies and parses a notification in the signed
// callback's format.
func (s Simulated) Notification(h http.Header, body []byte, now time.Time) (Notification, error) {
	return signedNotification(s.Secret, h, body, now)
}

// Name is "simulated".
func (Simulated) Name() string { return "simulated" }

// Statement is ErrNoStatement: the demo's payments are only slotd's records.
func (Simulated) Statement(context.Context, time.Time, time.Time) ([]booking.StatementLine, error) {
	return nil, ErrNoStatement
}

// Refund answers "sim-" and the idempotency key.
func (Simulated) Refund(_ context.Context, req RefundRequest) (string, error) {
	if req.RefundID <= 0 || req.Amount <= 0 {
		return "", fmt.Errorf("payments: refund %d of %d: nothing to refund", req.RefundID, req.Amount)
	}
	return "sim-" + req.IdempotencyKey(), nil
}
