package httpapi

import (
	"context"
	"fmt"
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

	// The patient asks where to pay: Stripe's page, the same twice.
	path := fmt.Sprintf("/api/appointments/%d/checkout", a.ID)
	back := map[string]any{"returnUrl": "https://clinic.example/back"}
	var co, again checkoutAnswer
	e.do(call{method: "POST", path: path, token: e.patientToken(a.PatientID), body: back}).expect(t, 200).decode(t, &co)
	e.do(call{method: "POST", path: path, token: e.admin, body: back}).expect(t, 200).decode(t, &again)
	if !strings.HasPrefix(co.RedirectURL, "https://checkout.stripe.com/") || again.RedirectURL != co.RedirectURL || co.ExpiresAt.IsZero() {
		t.Fatalf("checkouts %+v, %+v", co, again)
	}
	for _, bad := range []any{"/relative", "javascript:alert(1)", "https://" + strings.Repeat("x", 2000) + ".example/", 7} {
		c := call{method: "POST", path: path, token: e.patientToken(a.PatientID), body: map[string]any{"returnUrl": bad}, invalid: true}
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "POST", path: path, token: e.patientToken(e.patient().ID), body: back}).expect(t, 404, booking.CodeNotFound)

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

	var ans notificationAnswer
	e.do(signed(paid)).expect(t, 200).decode(t, &ans)
	if ans.Outcome != "applied" {
		t.Fatalf("paid: %+v", ans)
	}
	// Paid: nothing more to pay.
	e.do(call{method: "POST", path: path, token: e.patientToken(a.PatientID), body: back}).expect(t, 409, booking.CodeInvalidTransition)
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

// TestSignedCheckout: the clinic's signed gateway is not redirected to;
// the checkout answers the parameters it takes the payment with.
func TestSignedCheckout(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	a := e.hold(e.fixture(), 2500)
	var co checkoutAnswer
	e.do(call{method: "POST", path: fmt.Sprintf("/api/appointments/%d/checkout", a.ID), token: e.patientToken(a.PatientID),
		body: map[string]any{"returnUrl": "https://clinic.example/back"}}).expect(t, 200).decode(t, &co)
	if co.RedirectURL != "" || co.Params["appointmentId"] != fmt.Sprint(a.ID) || co.Params["amount"] != "2500" || co.Params["currency"] != "EUR" ||
		a.HoldExpiresAt == nil || !co.ExpiresAt.Equal(*a.HoldExpiresAt) {
		t.Fatalf("checkout %+v of %+v", co, a)
	}
}
