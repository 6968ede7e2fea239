package payments_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/stripefake"
)

func newStripe(t *testing.T, fake *stripefake.Fake, now time.Time) *payments.Stripe {
	p, err := payments.NewStripe(payments.StripeConfig{SecretKey: stripefake.Key, WebhookSecret: stripefake.WebhookSecret,
		APIURL: fake.URL, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStripeCheckout: one Checkout Session per appointment (its
// idempotency key), form-encoded as Stripe documents, expiring at the
// hold's deadline clamped to Stripe's 30 minutes.
func TestStripeCheckout(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	fake := stripefake.New(t)
	p := newStripe(t, fake, now)
	req := payments.CheckoutRequest{AppointmentID: 42, Amount: 250000, Currency: "VND", Description: "Appointment 42",
		ReturnURL: "https://clinic.example/appointments/42?paid=1", ExpiresAt: now.Add(time.Hour)}
	c1, err := p.Checkout(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := p.Checkout(context.Background(), req)
	if err != nil || c2.RedirectURL != c1.RedirectURL || !strings.HasPrefix(c1.RedirectURL, "https://checkout.stripe.com/") {
		t.Fatalf("checkouts %q, %q, %v: want the same session twice", c1.RedirectURL, c2.RedirectURL, err)
	}
	if !c1.ExpiresAt.Equal(now.Add(time.Hour)) {
		t.Fatalf("expires %v, want the hold's deadline", c1.ExpiresAt)
	}
	reqs := fake.Requests()
	f := reqs[0].Form
	for k, want := range map[string]string{
		"mode": "payment", "client_reference_id": "42", "expires_at": "1800003600",
		"success_url": req.ReturnURL, "cancel_url": req.ReturnURL,
		"line_items[0][quantity]": "1", "line_items[0][price_data][currency]": "vnd",
		"line_items[0][price_data][unit_amount]":        "250000",
		"line_items[0][price_data][product_data][name]": "Appointment 42",
		"metadata[slotd_appointment_id]":                "42", "payment_intent_data[metadata][slotd_appointment_id]": "42",
	} {
		if got := f.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if reqs[0].Path != "/v1/checkout/sessions" || !strings.HasPrefix(reqs[0].Key, "slotd-checkout-42-") || reqs[1].Key != reqs[0].Key {
		t.Fatalf("requests %+v", reqs)
	}
	// Another return URL is another request: another key, never Stripe's
	// refusal of a key reused with other parameters.
	other := req
	other.ReturnURL = "https://app.example/back"
	if _, err := p.Checkout(context.Background(), other); err != nil || fake.Requests()[2].Key == reqs[0].Key {
		t.Fatalf("another return URL: %v, key %q", err, fake.Requests()[2].Key)
	}

	// A hold ending in 10 minutes: Stripe takes no session shorter than
	// 30, rounded up to the minute.
	later := now.Add(10 * time.Second)
	req.AppointmentID, req.ExpiresAt = 43, later.Add(10*time.Minute)
	c, err := newStripe(t, fake, later).Checkout(context.Background(), req)
	if want := now.Add(31 * time.Minute); err != nil || !c.ExpiresAt.Equal(want) {
		t.Fatalf("short hold: expires %v, %v; want %v", c.ExpiresAt, err, want)
	}
}

// TestStripeRefund: keyed by slotd's refund id; a 5xx is an error and the
// retry with the same key pays once.
func TestStripeRefund(t *testing.T) {
	fake := stripefake.New(t)
	fake.SetFail5xx(1)
	p := newStripe(t, fake, time.Now())
	req := payments.RefundRequest{RefundID: 7, TradeNo: "pi_1", Amount: 2500, Currency: "EUR"}
	if _, err := p.Refund(context.Background(), req); err == nil {
		t.Fatal("a 500 was taken for a refund")
	}
	ref, err := p.Refund(context.Background(), req)
	if err != nil || !strings.HasPrefix(ref, "re_test_") {
		t.Fatalf("retry: %q, %v", ref, err)
	}
	again, err := p.Refund(context.Background(), req)
	if err != nil || again != ref {
		t.Fatalf("a repeat answered %q, %v; want %q", again, err, ref)
	}
	for _, r := range fake.Requests() {
		if r.Path != "/v1/refunds" || r.Key != "slotd-refund-7" || r.Form.Get("payment_intent") != "pi_1" ||
			r.Form.Get("amount") != "2500" || r.Form.Get("metadata[slotd_refund_id]") != "7" {
			t.Fatalf("refund request %+v", r)
		}
	}
	if _, err := p.Refund(context.Background(), payments.RefundRequest{RefundID: 8}); err == nil {
		t.Fatal("a refund of nothing was asked")
	}
}

// TestStripeNotification: only a body signed with the endpoint's secret,
// unchanged and fresh, is parsed.
func TestStripeNotification(t *testing.T) {
	p := newStripe(t, stripefake.New(t), time.Now())
	body := stripefake.Event("evt_1", "checkout.session.completed", stripefake.SessionCompleted(42, 2500, "eur", "pi_1"))
	h := func(sig string) http.Header { return http.Header{"Stripe-Signature": {sig}} }
	n, err := p.Notification(h(stripefake.Sign(body, stripefake.WebhookSecret, time.Now())), body, time.Now())
	if err != nil || n.Paid == nil || *n.Paid != (payments.Paid{AppointmentID: 42, Amount: 2500, Currency: "EUR", PaymentID: "pi_1"}) {
		t.Fatalf("valid event: %+v, %v", n.Paid, err)
	}
	tampered := []byte(strings.Replace(string(body), "2500", "25", 1))
	for name, c := range map[string]struct {
		body []byte
		sig  string
	}{
		"tampered":       {tampered, stripefake.Sign(body, stripefake.WebhookSecret, time.Now())},
		"too old":        {body, stripefake.Sign(body, stripefake.WebhookSecret, time.Now().Add(-payments.StripeTolerance-time.Minute))},
		"another secret": {body, stripefake.Sign(body, "whsec_other", time.Now())},
		"unsigned":       {body, ""},
	} {
		if _, err := p.Notification(h(c.sig), c.body, time.Now()); !errors.Is(err, payments.ErrUnverified) {
			t.Errorf("%s: %v, want ErrUnverified", name, err)
		}
	}

	refund := stripefake.Event("evt_2", "refund.updated", map[string]any{"id": "re_9", "object": "refund", "status": "succeeded",
		"metadata": map[string]string{"slotd_refund_id": "7"}})
	n, err = p.Notification(h(stripefake.Sign(refund, stripefake.WebhookSecret, time.Now())), refund, time.Now())
	if err != nil || n.Refund == nil || *n.Refund != (payments.RefundUpdate{RefundID: 7, ProviderRef: "re_9"}) {
		t.Fatalf("refund event: %+v, %v", n.Refund, err)
	}
	other := stripefake.Event("evt_3", "customer.created", map[string]any{"id": "cus_1", "object": "customer"})
	n, err = p.Notification(h(stripefake.Sign(other, stripefake.WebhookSecret, time.Now())), other, time.Now())
	if err != nil || n.Paid != nil || n.Refund != nil {
		t.Fatalf("another event: %+v, %v", n, err)
	}
}

func TestNewStripeNeedsKeys(t *testing.T) {
	if _, err := payments.NewStripe(payments.StripeConfig{SecretKey: "sk"}); err == nil {
		t.Fatal("a stripe provider without its webhook secret")
	}
}

// TestStripeStatement: the day's balance transactions, sources expanded:
// charges are payments of their PaymentIntent, refunds slotd's by their
// metadata; payouts and other days are left out.
func TestStripeStatement(t *testing.T) {
	fake := stripefake.New(t)
	p := newStripe(t, fake, time.Now())
	from := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	fake.AddCharge("pi_1", 2500, from.Add(time.Hour))
	fake.AddRefund(stripefake.Refund{ID: "re_1", PaymentIntent: "pi_1", RefundID: 7, Amount: 1250, At: from.Add(2 * time.Hour)})
	fake.AddPayout(1000, from.Add(3*time.Hour))
	fake.AddCharge("pi_2", 2500, from.Add(25*time.Hour))
	lines, err := p.Statement(context.Background(), from, from.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []booking.StatementLine{
		{Kind: booking.StatementPayment, TradeNo: "pi_1", Amount: 2500, At: from.Add(time.Hour)},
		{Kind: booking.StatementRefund, TradeNo: "pi_1", RefundID: 7, RefundRef: "re_1", Amount: 1250, At: from.Add(2 * time.Hour)},
	}
	if len(lines) != 2 || lines[0] != want[0] || lines[1] != want[1] {
		t.Fatalf("statement %+v, want %+v", lines, want)
	}
}
