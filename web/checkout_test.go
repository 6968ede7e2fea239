package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/stripefake"
	"github.com/slotd/slotd/service"
)

// TestStripeCheckoutPages: with Stripe as the provider, the held
// appointment's Pay button sends the patient to Stripe Checkout (a local
// fake), which returns them to the appointment's page; that page says
// what it knows: still being confirmed, booked once the event arrived, or
// expired for a payment that came after the hold.
func TestStripeCheckoutPages(t *testing.T) {
	fake := stripefake.New(t)
	var later atomic.Int64 // how far the site's clock is ahead of the wall's
	now := func() time.Time { return time.Now().Add(time.Duration(later.Load())) }
	s := plain(t, newSite(t, withoutSamples(), withClock(now), withService(func(o *service.Options) {
		p, err := payments.NewStripe(payments.StripeConfig{SecretKey: stripefake.Key, WebhookSecret: stripefake.WebhookSecret, APIURL: fake.URL})
		must(t, err)
		o.Payments, o.BookingRate = p, 100
	})))
	ctx := context.Background()
	c := s.client(t)
	notice := func(id int64) string {
		return html.UnescapeString(get(t, c, fmt.Sprintf("%s/appointments/%d?paid=1", s.url, id)))
	}
	deliver := func(id int64, pi string) {
		body := stripefake.Event("evt_"+pi, "checkout.session.completed", stripefake.SessionCompleted(id, 2500, "eur", pi))
		_, err := s.svc.PaymentNotification(ctx, service.ProviderStripe, http.Header{"Stripe-Signature": {stripefake.Sign(body, stripefake.WebhookSecret, time.Now())}}, body)
		if err != nil && booking.ErrorCode(err) != booking.CodePaymentRejected {
			t.Fatal(err)
		}
	}

	res := s.svc.Book(ctx, s.patient.ID, s.paid.ID, "stripe-1")
	must(t, res.Err)
	a := res.Appointment
	page := get(t, c, fmt.Sprintf("%s/appointments/%d", s.url, a.ID))
	action := fmt.Sprintf("/appointments/%d/checkout", a.ID)
	r := post(t, c, s.url+action, url.Values{"csrf": {formValue(t, page, action, "csrf")}})
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "https://checkout.stripe.com/") {
		t.Fatalf("pay: %d %s, want 303 to Stripe Checkout", r.StatusCode, r.Header.Get("Location"))
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].Form.Get("success_url") != fmt.Sprintf("%s/appointments/%d?paid=1", s.url, a.ID) {
		t.Fatalf("Stripe was asked %+v", reqs)
	}
	if got := notice(a.ID); !strings.Contains(got, "Your payment is being confirmed.") {
		t.Fatal("back before the event: no 'being confirmed' notice")
	}
	deliver(a.ID, "pi_1")
	if got := notice(a.ID); !strings.Contains(got, "Payment received: you are booked.") {
		t.Fatal("back after the event: no 'booked' notice")
	}
	// No CSRF token: refused, Stripe not asked.
	if r := post(t, c, s.url+action, url.Values{}); r.StatusCode < 400 || r.StatusCode >= 500 || len(fake.Requests()) != 1 {
		t.Fatalf("a checkout without its token: %d, %d requests", r.StatusCode, len(fake.Requests()))
	}

	// The hold passes while the patient is at Stripe: the late payment
	// expires it, and the page says the money comes back.
	at := s.paid.StartAt.Add(2 * time.Hour)
	_, err := s.store.InsertSlots(ctx, []booking.Slot{{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute),
		Capacity: 5, OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, FeeCents: 2500, HoldSeconds: 900}})
	must(t, err)
	sls, err := s.store.ListSlots(ctx, s.doctor.ID, at, at.Add(time.Minute))
	must(t, err)
	res = s.svc.Book(ctx, s.patient.ID, sls[0].ID, "stripe-2")
	must(t, res.Err)
	b := res.Appointment
	later.Store(int64(20 * time.Minute)) // the hold is 15 minutes
	deliver(b.ID, "pi_2")
	if got := notice(b.ID); !strings.Contains(got, "The hold ended before the payment arrived") {
		t.Fatal("back after the hold: no 'expired' notice")
	}
}
