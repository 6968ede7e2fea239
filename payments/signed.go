package payments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
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

// SignedCallback names the signed gateway, whose notifications are POSTed
// to /api/payments/callback.
const SignedCallback = "signed-callback"

// Name is SignedCallback.
func (*Signed) Name() string { return SignedCallback }

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

// Statement is ErrNoStatement: the clinic's gateway keeps its own books,
// and its day is reconciled from slotd's records.
func (*Signed) Statement(context.Context, time.Time, time.Time) ([]booking.StatementLine, error) {
	return nil, ErrNoStatement
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

// signedNotification verifies the signed callback's raw body (its
// signature before a byte of it is read, as the signature covers the raw
// bytes) and parses it strictly: one JSON object of exactly its members.
// What is malformed is a *booking.Error (CodeInvalidRequest), what does
// not verify a CodeBadSignature one.
func signedNotification(secret []byte, h http.Header, body []byte, now time.Time) (Notification, error) {
	if !auth.VerifyPayment(secret, body, h.Get(auth.PaymentSignatureHeader)) {
		return Notification{}, booking.Errorf(booking.CodeBadSignature, "the %s header is missing or does not match the body", auth.PaymentSignatureHeader)
	}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "Content-Type must be application/json")
	}
	var in struct {
		TradeNo       string `json:"tradeNo"`
		AppointmentID int64  `json:"appointmentId"`
		Amount        int64  `json:"amount"`
		// Currency and Timestamp (unix seconds) are signed with the rest:
		// an amount is only meaningful in its currency, and a callback
		// only while it is fresh (auth.PaymentMaxSkew).
		Currency  string `json:"currency"`
		Timestamp int64  `json:"timestamp"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "the body must be the callback's JSON object, with only its members")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "unexpected data after the JSON body")
	}
	switch {
	case !ValidPaymentID(in.TradeNo):
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "tradeNo must be 1 to %d visible ASCII characters", MaxPaymentIDLen)
	case in.AppointmentID <= 0 || in.AppointmentID > booking.MaxID:
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "appointmentId must be an id 1 to %d", int64(booking.MaxID))
	case in.Amount <= 0 || in.Amount > booking.MaxFeeCents:
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "amount must be 1 to %d (cents)", booking.MaxFeeCents)
	case !validCurrency(in.Currency):
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "currency must be an ISO 4217 code of 3 capital letters")
	case in.Timestamp <= 0 || in.Timestamp > maxTimestamp:
		return Notification{}, booking.Errorf(booking.CodeInvalidRequest, "timestamp must be the signing time in unix seconds")
	case !auth.PaymentTimely(in.Timestamp, now):
		return Notification{}, booking.Errorf(booking.CodeBadSignature, "the callback was signed more than %d minutes from now: a replayed, delayed or misdated callback",
			int(auth.PaymentMaxSkew/time.Minute))
	}
	return Notification{Paid: &Paid{AppointmentID: in.AppointmentID, Amount: in.Amount, Currency: in.Currency, PaymentID: in.TradeNo}}, nil
}

// maxTimestamp is 9999-12-31T23:59:59Z in unix seconds.
const maxTimestamp = 253402300799

// MaxPaymentIDLen bounds a provider's payment id (slotd's trade number).
const MaxPaymentIDLen = 64

// ValidPaymentID accepts what an Idempotency-Key accepts: 1 to
// MaxPaymentIDLen visible ASCII characters.
func ValidPaymentID(t string) bool {
	if t == "" || len(t) > MaxPaymentIDLen {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 0x21 || t[i] > 0x7e {
			return false
		}
	}
	return true
}

// validCurrency accepts the form of an ISO 4217 code: 3 capital letters.
func validCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if c[i] < 'A' || c[i] > 'Z' {
			return false
		}
	}
	return true
}
