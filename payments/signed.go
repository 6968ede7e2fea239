package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
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

// Checkout answers the parameters the clinic's gateway takes the payment
// with: slotd does not redirect to it, the gateway's own page (or till)
// collects the payment and confirms it by the signed callback.
func (*Signed) Checkout(_ context.Context, req CheckoutRequest) (Checkout, error) {
	return Checkout{ExpiresAt: req.ExpiresAt, Params: map[string]string{
		"appointmentId": strconv.FormatInt(req.AppointmentID, 10),
		"amount":        strconv.FormatInt(req.Amount, 10),
		"currency":      req.Currency,
		"expiresAt":     strconv.FormatInt(req.ExpiresAt.Unix(), 10),
	}}, nil
}

// Notification verifies and parses the signed callback's body
// {"tradeNo","appointmentId","amount","currency","timestamp"}: signed with
// Secret (auth.VerifyPayment) and fresh (auth.PaymentTimely).
func (p *Signed) Notification(h http.Header, body []byte, now time.Time) (Notification, error) {
	return signedNotification(p.Secret, h, body, now)
}

func signedNotification(secret []byte, h http.Header, body []byte, now time.Time) (Notification, error) {
	if !auth.VerifyPayment(secret, body, h.Get(auth.PaymentSignatureHeader)) {
		return Notification{}, ErrUnverified
	}
	var in struct {
		TradeNo       string `json:"tradeNo"`
		AppointmentID int64  `json:"appointmentId"`
		Amount        int64  `json:"amount"`
		Currency      string `json:"currency"`
		Timestamp     int64  `json:"timestamp"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return Notification{}, fmt.Errorf("payments: the callback is not its JSON: %w", err)
	}
	if !auth.PaymentTimely(in.Timestamp, now) {
		return Notification{}, ErrUnverified
	}
	return Notification{Paid: &Paid{AppointmentID: in.AppointmentID, Amount: in.Amount, Currency: in.Currency, PaymentID: in.TradeNo}}, nil
}
