package jobs

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/stripefake"
	"github.com/slotd/slotd/service"
)

// TestStripeEndToEnd: a held appointment is paid at Stripe (a local fake)
// and booked by the signed webhook event, once however often the event
// comes; a payment whose hold expired while it was in flight becomes a
// refund, asked of Stripe by the refund job, retried after a 500 with the
// same key, and the refund's own event changes nothing more.
func TestStripeEndToEnd(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		fake := stripefake.New(t)
		fake.SetFail5xx(1)
		var now atomic.Int64
		now.Store(t0.UnixNano())
		clk := func() time.Time { return time.Unix(0, now.Load()) }
		prov, err := payments.NewStripe(payments.StripeConfig{SecretKey: stripefake.Key, WebhookSecret: stripefake.WebhookSecret, APIURL: fake.URL, Now: clk})
		must(t, err)
		svc := service.NewService(s, service.Options{Now: clk, Payments: prov, Currency: "EUR"})
		r := runner(t, s, Config{Service: svc, Notifier: &recorder{}}, true)
		deliver := func(body []byte) (service.NotificationResult, error) {
			h := http.Header{"Stripe-Signature": {stripefake.Sign(body, stripefake.WebhookSecret, time.Now())}}
			return svc.PaymentNotification(f.ctx, "stripe", h, body)
		}

		// Paid in time: BOOKED, and the same event again is a duplicate.
		p := f.patient()
		a := f.book(f.slot(1, 2500).ID, t0, p)[0]
		c, err := svc.Checkout(f.ctx, a.ID, p.ID, service.CheckoutTo{ReturnURL: "https://clinic.example/appointments/1?paid=1"})
		must(t, err)
		if !strings.HasPrefix(c.RedirectURL, "https://checkout.stripe.com/") || !c.ExpiresAt.Equal(t0.Add(payments.StripeMinExpiry)) {
			t.Fatalf("checkout %+v: want Stripe's page, expiring 30 minutes on (the hold is 15)", c)
		}
		if _, err := svc.Checkout(f.ctx, a.ID, f.patient().ID, service.CheckoutTo{ReturnURL: "https://clinic.example/"}); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("another patient's checkout: %v", err)
		}
		paid := stripefake.Event("evt_1", "checkout.session.completed", stripefake.SessionCompleted(a.ID, 2500, "eur", "pi_1"))
		res, err := deliver(paid)
		if err != nil || res.Payment == nil || res.Payment.Appointment.Status != booking.StatusBooked {
			t.Fatalf("paid: %+v, %v", res.Payment, err)
		}
		res, err = deliver(paid)
		if err != nil || res.Payment == nil || !res.Payment.Duplicate {
			t.Fatalf("replayed event: %+v, %v; want a duplicate", res.Payment, err)
		}
		tampered := []byte(strings.Replace(string(paid), `"amount_total":2500`, `"amount_total":1`, 1))
		h := http.Header{"Stripe-Signature": {stripefake.Sign(paid, stripefake.WebhookSecret, time.Now())}}
		if _, err := svc.PaymentNotification(f.ctx, "stripe", h, tampered); booking.ErrorCode(err) != booking.CodeBadSignature {
			t.Fatalf("tampered event: %v", err)
		}
		if _, err := svc.PaymentNotification(f.ctx, "signed-callback", h, paid); booking.ErrorCode(err) != booking.CodeBadSignature {
			t.Fatalf("another provider's notification: %v", err)
		}

		// Paid after the hold's deadline (the session outlives a 15-minute
		// hold): recorded, the hold expired, refunded through Stripe.
		q := f.patient()
		late := f.book(f.slot(1, 2500).ID, t0, q)[0]
		_, err = svc.Checkout(f.ctx, late.ID, q.ID, service.CheckoutTo{ReturnURL: "https://clinic.example/appointments/2?paid=1"})
		must(t, err)
		now.Store(t0.Add(20 * time.Minute).UnixNano())
		if _, err := svc.Checkout(f.ctx, late.ID, q.ID, service.CheckoutTo{ReturnURL: "https://clinic.example/"}); booking.ErrorCode(err) != booking.CodeInvalidTransition {
			t.Fatalf("checkout after the hold: %v", err)
		}
		_, err = deliver(stripefake.Event("evt_2", "checkout.session.completed", stripefake.SessionCompleted(late.ID, 2500, "eur", "pi_2")))
		if booking.ErrorCode(err) != booking.CodePaymentRejected {
			t.Fatalf("late payment: %v, want payment-rejected", err)
		}
		var refund booking.Refund
		eventually(t, "the late payment's refund", 30*time.Second, func() bool {
			rs, err := svc.AppointmentRefunds(f.ctx, late.ID, 0)
			must(t, err)
			if len(rs) == 1 {
				refund = rs[0]
			}
			return refund.State == booking.RefundSucceeded
		})
		if refund.Reason != booking.RefundLatePayment || refund.AmountCents != 2500 || refund.Attempts != 2 || !strings.HasPrefix(refund.ProviderRef, "re_test_") {
			t.Fatalf("refund %+v: want the late payment's, paid on the second attempt", refund)
		}
		var asked []stripefake.Request
		for _, rq := range fake.Requests() {
			if rq.Path == "/v1/refunds" {
				asked = append(asked, rq)
			}
		}
		if len(asked) != 2 || asked[0].Key != (payments.RefundRequest{RefundID: refund.ID}).IdempotencyKey() || asked[1].Key != asked[0].Key ||
			asked[0].Form.Get("payment_intent") != "pi_2" || asked[0].Form.Get("amount") != "2500" {
			t.Fatalf("refund requests %+v", asked)
		}
		got, err := svc.Appointment(f.ctx, late.ID, 0)
		must(t, err)
		if got.Status != booking.StatusExpired {
			t.Fatalf("late appointment %s, want EXPIRED", got.Status)
		}

		// Stripe's refund event after the job settled it: nothing changes.
		ev := stripefake.Event("evt_3", "refund.updated", map[string]any{"id": refund.ProviderRef, "object": "refund", "status": "succeeded",
			"metadata": map[string]string{"slotd_refund_id": strconv.FormatInt(refund.ID, 10)}})
		res, err = deliver(ev)
		if err != nil || res.Refund == nil || res.Refund.State != booking.RefundSucceeded || res.Refund.Attempts != refund.Attempts || res.Refund.ProviderRef != refund.ProviderRef {
			t.Fatalf("refund event: %+v, %v; want the settled refund unchanged", res.Refund, err)
		}
		if res.Reversed {
			t.Fatal("a succeeded refund's success event reads as reversed")
		}

		// Stripe fails the refund later: the record stays (staff settle it
		// at Stripe), and the answer says so.
		failed := stripefake.Event("evt_4", "refund.failed", map[string]any{"id": refund.ProviderRef, "object": "refund", "status": "failed",
			"failure_reason": "expired_or_canceled_card", "metadata": map[string]string{"slotd_refund_id": strconv.FormatInt(refund.ID, 10)}})
		res, err = deliver(failed)
		if err != nil || !res.Reversed || res.Refund.State != booking.RefundSucceeded || res.Refund.Attempts != refund.Attempts {
			t.Fatalf("refund failed at Stripe: %+v, %v; want it reported reversed, the record unchanged", res, err)
		}
		drained(t, r)
	})
}
