package httpapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/stripefake"
	"github.com/slotd/slotd/service"
)

// TestStripeWebhook: POST /api/payments/stripe takes only events signed
// with the endpoint's secret; a paid session books the held appointment,
// the same event again is a duplicate, a late payment is kept (200, so
// Stripe stops resending) and refunded; the signed callback is refused
// while Stripe is the provider.
func TestStripeWebhook(t *testing.T) {
	fake := stripefake.New(t)
	e := newEnv(t, withService(func(o *service.Options) {
		p, err := payments.NewStripe(payments.StripeConfig{SecretKey: stripefake.Key, WebhookSecret: stripefake.WebhookSecret, APIURL: fake.URL})
		if err != nil {
			t.Fatal(err)
		}
		o.Payments = p
	}))
	f := e.fixture()
	a := e.hold(f, 2500)
	event := func(id string, appt int64, pi string) []byte {
		return stripefake.Event(id, "checkout.session.completed", stripefake.SessionCompleted(appt, 2500, "eur", pi))
	}
	webhook := func(body []byte, sig string) call {
		return call{method: "POST", path: "/api/payments/stripe", body: body, header: map[string]string{"Stripe-Signature": sig, "Content-Type": "application/json"}}
	}
	signed := func(body []byte) call {
		return webhook(body, stripefake.Sign(body, stripefake.WebhookSecret, time.Now()))
	}

	paid := event("evt_1", a.ID, "pi_1")
	before := e.snapshot()
	for name, c := range map[string]call{
		"tampered":       webhook([]byte(strings.Replace(string(paid), "2500", "25", 1)), stripefake.Sign(paid, stripefake.WebhookSecret, time.Now())),
		"too old":        webhook(paid, stripefake.Sign(paid, stripefake.WebhookSecret, time.Now().Add(-10*time.Minute))),
		"another secret": webhook(paid, stripefake.Sign(paid, "whsec_other", time.Now())),
	} {
		e.do(c).expect(t, 401, booking.CodeBadSignature)
		if e.snapshot() != before {
			t.Fatalf("%s: a refused event changed the database", name)
		}
	}
	// The signed gateway's callback is not Stripe's.
	e.do(e.callback(paymentSecret, payment("T-1", a.ID, 2500))).expect(t, 401, booking.CodeBadSignature)

	var ans stripeAnswer
	e.do(signed(paid)).expect(t, 200).decode(t, &ans)
	if ans.Outcome != "applied" {
		t.Fatalf("paid: %+v", ans)
	}
	got, err := e.store.GetAppointment(context.Background(), a.ID)
	if err != nil || got.Status != booking.StatusBooked {
		t.Fatalf("after the paid event: %s, want BOOKED", got.Status)
	}
	booked := e.snapshot()
	e.do(signed(paid)).expect(t, 200).decode(t, &ans)
	if ans.Outcome != "duplicate" || e.snapshot() != booked {
		t.Fatalf("replayed event: %+v, or the database changed", ans)
	}

	// Paid again for the booked appointment through another session: kept,
	// answered 200 (Stripe must stop), and refunded.
	e.do(signed(event("evt_2", a.ID, "pi_2"))).expect(t, 200).decode(t, &ans)
	if ans.Outcome != string(booking.CodePaymentRejected) {
		t.Fatalf("a second payment: %+v", ans)
	}
	rs, err := e.store.AppointmentRefunds(context.Background(), a.ID)
	if err != nil || len(rs) != 1 || rs[0].TradeNo != "pi_2" || rs[0].Reason != booking.RefundLatePayment || rs[0].AmountCents != 2500 {
		t.Fatalf("refunds %+v, want the second payment's", rs)
	}

	// An event slotd does not act on is taken and ignored.
	other := stripefake.Event("evt_3", "customer.created", map[string]any{"id": "cus_1", "object": "customer"})
	e.do(signed(other)).expect(t, 200).decode(t, &ans)
	if ans.Outcome != "ignored" {
		t.Fatalf("another event: %+v", ans)
	}
}
