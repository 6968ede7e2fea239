// Package stripefake is a local fake of Stripe's API for tests: it
// answers at stripe-go's backend URL as Stripe documents creating a
// Checkout Session and a Refund, and signs webhook events as Stripe does
// (stripe-go's test helper).
package stripefake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"
)

// Key and WebhookSecret are the fake's API key and signing secret.
const (
	Key           = "sk_test_fake"
	WebhookSecret = "whsec_fake"
)

// Fake answers at stripe-go's backend URL as Stripe's API documents
// POST /v1/checkout/sessions and POST /v1/refunds: form-encoded bodies,
// the secret key as Bearer, the Idempotency-Key header (a repeat of a key
// answers the first answer; with other parameters it is refused). The next Fail5xx refunds answer 500.
type Fake struct {
	URL string
	t   *testing.T
	mu  sync.Mutex
	// Fail5xx is how many refunds are answered 500 before one succeeds.
	Fail5xx int
	seen    map[string]string // idempotency key → answer
	bodies  map[string]string // idempotency key → its first form
	reqs    []Request
	balance []map[string]any // balance transactions, their sources expanded
}

// Request is one request the fake took: its path, form and key.
type Request struct {
	Path, Key string
	Form      url.Values
}

// New starts a fake, closed with the test.
func New(t *testing.T) *Fake {
	f := &Fake{t: t, seen: map[string]string{}, bodies: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+Key {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided"}}`)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		f.t.Errorf("%s: Content-Type %q", r.URL.Path, ct)
	}
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("%s: %v", r.URL.Path, err)
	}
	if r.Method == http.MethodGet && r.URL.Path == "/v1/balance_transactions" {
		f.listBalance(w, r)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	f.reqs = append(f.reqs, Request{Path: r.URL.Path, Key: key, Form: r.PostForm})
	if key == "" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"no idempotency key"}}`)
		return
	}
	if first, ok := f.bodies[key]; ok && first != r.PostForm.Encode() {
		// Stripe refuses a key reused with other parameters.
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with."}}`)
		return
	}
	f.bodies[key] = r.PostForm.Encode()
	if ans, ok := f.seen[key]; ok {
		w.Header().Set("Idempotent-Replayed", "true")
		fmt.Fprint(w, ans)
		return
	}
	var ans string
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/checkout/sessions":
		ans = fmt.Sprintf(`{"id":"cs_test_%d","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_test_%d","expires_at":%s,"client_reference_id":%q,"mode":"payment","status":"open","payment_status":"unpaid"}`,
			len(f.seen)+1, len(f.seen)+1, r.PostForm.Get("expires_at"), r.PostForm.Get("client_reference_id"))
	case r.Method == http.MethodPost && r.URL.Path == "/v1/refunds":
		if f.Fail5xx > 0 {
			f.Fail5xx--
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"type":"api_error","message":"An unknown error occurred"}}`)
			return
		}
		ans = fmt.Sprintf(`{"id":"re_test_%d","object":"refund","amount":%s,"payment_intent":%q,"status":"succeeded","metadata":{"slotd_refund_id":%q}}`,
			len(f.seen)+1, r.PostForm.Get("amount"), r.PostForm.Get("payment_intent"), r.PostForm.Get("metadata[slotd_refund_id]"))
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"Unrecognized request URL"}}`)
		return
	}
	f.seen[key] = ans
	fmt.Fprint(w, ans)
}

// listBalance answers GET /v1/balance_transactions: those created in
// [created[gte], created[lt]), one page, when data.source is expanded (as
// slotd asks).
func (f *Fake) listBalance(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	gte, err1 := strconv.ParseInt(q.Get("created[gte]"), 10, 64)
	lt, err2 := strconv.ParseInt(q.Get("created[lt]"), 10, 64)
	if err1 != nil || err2 != nil || q.Get("expand[0]") != "data.source" {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"type":"invalid_request_error","message":"created[gte], created[lt] and expand[]=data.source"}}`)
		return
	}
	data := []map[string]any{}
	for _, bt := range f.balance {
		if c := bt["created"].(int64); c >= gte && c < lt {
			data = append(data, bt)
		}
	}
	raw, _ := json.Marshal(map[string]any{"object": "list", "url": "/v1/balance_transactions", "has_more": false, "data": data})
	w.Write(raw)
}

// AddCharge puts on the balance a charge of amount for PaymentIntent pi,
// created at at.
func (f *Fake) AddCharge(pi string, amount int64, at time.Time) {
	f.addBalance("charge", amount, at, map[string]any{"id": "ch_" + pi, "object": "charge", "payment_intent": pi, "amount": amount})
}

// Refund is a refund on the balance: Stripe's id, the PaymentIntent it
// refunds, slotd's refund id, the amount and when it was made.
type Refund struct {
	ID, PaymentIntent string
	RefundID, Amount  int64
	At                time.Time
}

// AddRefund puts r on the balance.
func (f *Fake) AddRefund(r Refund) {
	f.addBalance("refund", -r.Amount, r.At, map[string]any{"id": r.ID, "object": "refund", "payment_intent": r.PaymentIntent, "amount": r.Amount,
		"status": "succeeded", "metadata": map[string]string{"slotd_refund_id": strconv.FormatInt(r.RefundID, 10)}})
}

// AddPayout puts a payout on the balance (not slotd's).
func (f *Fake) AddPayout(amount int64, at time.Time) {
	f.addBalance("payout", -amount, at, map[string]any{"id": "po_1", "object": "payout", "amount": amount})
}

func (f *Fake) addBalance(typ string, amount int64, at time.Time, source map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.balance = append(f.balance, map[string]any{"id": fmt.Sprintf("txn_%d", len(f.balance)+1), "object": "balance_transaction",
		"type": typ, "amount": amount, "currency": "eur", "created": at.Unix(), "source": source})
}

// Requests lists the requests taken so far.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.reqs...)
}

// SetFail5xx makes the next n refunds answer 500.
func (f *Fake) SetFail5xx(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Fail5xx = n
}

// Event is a Stripe event of type typ about object, with id.
func Event(id, typ string, object any) []byte {
	raw, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2025-07-30.basil",
		"data": map[string]any{"object": object}})
	if err != nil {
		panic(err)
	}
	return raw
}

// Sign is the Stripe-Signature header of payload signed with secret at
// at, by stripe-go's test helper.
func Sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

// SessionCompleted is the object of a paid checkout.session.completed
// for appointment appt: amount minor units of currency (lower case, as
// Stripe writes it) through PaymentIntent pi.
func SessionCompleted(appt int64, amount int64, currency, pi string) map[string]any {
	return map[string]any{"id": "cs_test_" + pi, "object": "checkout.session", "client_reference_id": fmt.Sprint(appt),
		"amount_total": amount, "currency": currency, "payment_status": "paid", "status": "complete", "payment_intent": pi}
}
