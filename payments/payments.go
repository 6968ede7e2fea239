// Package payments is slotd's port to payment providers and its generic
// implementations. A provider takes the money for a HELD appointment and
// confirms it through a notification (today the generic signed callback,
// POST /api/payments/callback, verified by auth.VerifyPayment), and pays
// it back when asked: Refund. A real provider (WeChat Pay, Stripe) plugs in
// as another Provider; the Service only ever calls the interface.
package payments

import (
	"context"
	"fmt"
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
	// Refund asks for req and answers the provider's refund id. An error
	// is retried (with backoff) until the attempts run out; the same
	// request again must not pay twice.
	Refund(ctx context.Context, req RefundRequest) (string, error)
}

// Simulated is the demo's provider: payments are simulated by the demo's
// pay page, and refunds succeed at once with a reference derived from the
// refund id (so a repeat answers the same one).
type Simulated struct{}

// Name is "simulated".
func (Simulated) Name() string { return "simulated" }

// Refund answers "sim-" and the idempotency key.
func (Simulated) Refund(_ context.Context, req RefundRequest) (string, error) {
	if req.RefundID <= 0 || req.Amount <= 0 {
		return "", fmt.Errorf("payments: refund %d of %d: nothing to refund", req.RefundID, req.Amount)
	}
	return "sim-" + req.IdempotencyKey(), nil
}
