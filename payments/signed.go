package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
)

// Signed is the generic provider of the signed callback: the clinic's
// payment gateway confirms payments to POST /api/payments/callback, signed
// with the shared secret, and slotd asks it for refunds the same way: a
// POST of the RefundRequest (with "timestamp", unix seconds) to URL,
// signed in auth.PaymentSignatureHeader with auth.SignPayment and carrying
// the Idempotency-Key of the refund. The gateway answers 2xx with
// {"refundId": "..."}, its refund's id; anything else is an error, retried.
type Signed struct {
	URL    string
	Secret []byte
	// Client sends the requests; one with a 10 s timeout when nil.
	Client *http.Client
	// Now is the clock of the signed timestamp; time.Now when nil.
	Now func() time.Time
}

// Name is "signed-callback".
func (*Signed) Name() string { return "signed-callback" }

// maxAnswer bounds the gateway's answer.
const maxAnswer = 64 << 10

// Refund posts the signed refund request.
func (p *Signed) Refund(ctx context.Context, req RefundRequest) (string, error) {
	if p.URL == "" || len(p.Secret) == 0 {
		return "", errors.New("payments: no refund endpoint is configured (--payment-refund-url and --payment-secret)")
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	body, err := json.Marshal(struct {
		RefundRequest
		Timestamp int64 `json:"timestamp"`
	}{req, now().Unix()})
	if err != nil {
		return "", err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("payments: refund request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Idempotency-Key", req.IdempotencyKey())
	hr.Header.Set(auth.PaymentSignatureHeader, auth.SignPayment(p.Secret, body))
	c := p.Client
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := c.Do(hr)
	if err != nil {
		return "", fmt.Errorf("payments: refund %d: %w", req.RefundID, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return "", fmt.Errorf("payments: refund %d: %w", req.RefundID, err)
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("payments: refund %d: the gateway answered %s", req.RefundID, resp.Status)
	}
	var out struct {
		RefundID string `json:"refundId"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.RefundID == "" || len(out.RefundID) > 64 {
		return "", fmt.Errorf("payments: refund %d: the gateway's answer has no refundId of 1 to 64 characters", req.RefundID)
	}
	return out.RefundID, nil
}
