package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/service"
)

// flakyProvider refuses the first `refuse` refunds it is asked and then
// pays, recording the requests.
type flakyProvider struct {
	payments.Simulated
	mu     sync.Mutex
	refuse int
	asked  []payments.RefundRequest
}

func (*flakyProvider) Name() string { return "flaky" }

func (p *flakyProvider) Refund(_ context.Context, req payments.RefundRequest) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req)
	if len(p.asked) <= p.refuse {
		return "", errors.New("gateway down")
	}
	return "re_" + req.IdempotencyKey(), nil
}

func (p *flakyProvider) requests() []payments.RefundRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]payments.RefundRequest(nil), p.asked...)
}

// TestRefundJobRetries: a cancel of a paid appointment writes the refund's
// job; a refused attempt is retried with backoff until the provider pays,
// always with the same refund id, and the patient is told once.
func TestRefundJobRetries(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sl := f.slot(1, 2500)
		p := f.patient()
		a := f.book(sl.ID, t0, p)[0]
		prov := &flakyProvider{refuse: 1}
		svc := service.NewService(s, service.Options{Now: clock(t0), Payments: prov, Currency: "EUR"})
		rec := &recorder{}
		r := runner(t, s, Config{Service: svc, Notifier: rec}, true)
		_, err := s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: "TJ1", AppointmentID: a.ID, AmountCents: 2500}, t0)
		must(t, err)
		_, err = svc.Cancel(f.ctx, a.ID, p.ID)
		must(t, err)

		var refund booking.Refund
		eventually(t, "the refund to succeed after a retry", 30*time.Second, func() bool {
			rs, err := svc.AppointmentRefunds(f.ctx, a.ID, p.ID)
			must(t, err)
			if len(rs) == 1 {
				refund = rs[0]
			}
			return refund.State == booking.RefundSucceeded
		})
		asked := prov.requests()
		if len(asked) != 2 || asked[0] != asked[1] || asked[0].RefundID != refund.ID || asked[0].Amount != 2500 || asked[0].TradeNo != "TJ1" || asked[0].Currency != "EUR" {
			t.Fatalf("provider asked %+v, want the same refund twice", asked)
		}
		if refund.Attempts != 2 || refund.ProviderRef != fmt.Sprintf("re_slotd-refund-%d", refund.ID) || refund.AmountCents != 2500 {
			t.Fatalf("refund %+v", refund)
		}
		eventually(t, "the refund notice", 20*time.Second, func() bool {
			for _, m := range rec.messages() {
				if m.Kind == notify.KindRefund {
					return m.RefundAmount == 2500 && m.Currency == "EUR" && m.AppointmentID == a.ID
				}
			}
			return false
		})
		drained(t, r)
		if n := finished(t, r, RefundArgs{}.Kind()); n != 1 {
			t.Fatalf("%d refund jobs finished, want 1", n)
		}
	})
}

// TestRefundJobFailsThenStaffRetry: the last refused attempt fails the
// refund; staff retrying it writes a new job that pays it.
func TestRefundJobFailsThenStaffRetry(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sl := f.slot(1, 900)
		p := f.patient()
		a := f.book(sl.ID, t0, p)[0]
		prov := &flakyProvider{refuse: 1}
		svc := service.NewService(s, service.Options{Now: clock(t0), Payments: prov})
		rec := &recorder{}
		r := runner(t, s, Config{Service: svc, Notifier: rec}, false)
		_, err := s.ConfirmPayment(f.ctx, booking.Payment{TradeNo: "TJ2", AppointmentID: a.ID, AmountCents: 900}, t0)
		must(t, err)
		_, err = svc.Cancel(f.ctx, a.ID, 0)
		must(t, err)
		rs, err := svc.AppointmentRefunds(f.ctx, a.ID, 0)
		must(t, err)
		// The job's last attempt, as River makes it after its backoff.
		got, err := svc.ProcessRefund(f.ctx, rs[0].ID, true)
		if err == nil || got.State != booking.RefundFailed || got.Failure != "gateway down" {
			t.Fatalf("last refused attempt: %+v, %v", got, err)
		}
		startRunner(t, r)
		_, err = svc.RetryRefund(f.ctx, rs[0].ID)
		must(t, err)
		eventually(t, "the retried refund", 20*time.Second, func() bool {
			got, err := svc.AppointmentRefunds(f.ctx, a.ID, 0)
			must(t, err)
			return got[0].State == booking.RefundSucceeded
		})
		drained(t, r)
	})
}
