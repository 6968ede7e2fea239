package jobs

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/wechatfake"
	"github.com/slotd/slotd/service"
)

// TestWeChatRaceStatement (both stores): held appointments are paid
// through WeChat Pay (a local fake; each notification delivered twice)
// while their patients cancel them, all at once. Whoever wins, each
// payment is refunded once, by the rule (paid then cancelled 25 hours or
// more before: half under a 48 h full / 50 % rule; cancelled before the
// payment landed: all of it), WeChat Pay pays back exactly that, and the
// day's reconciliation against WeChat Pay's trade bill is clean. A trade
// slotd never ordered, and a payment of another amount than its order,
// are then reported as their own kinds.
func TestWeChatRaceStatement(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		fake := wechatfake.New(t)
		var now atomic.Int64
		now.Store(t0.UnixNano())
		clk := func() time.Time { return time.Unix(0, now.Load()) }
		fake.SetClock(clk)
		prov, err := payments.NewWeChat(fake.Config())
		must(t, err)
		_, err = s.SetClinicPolicy(f.ctx, booking.Policy{MaxActive: booking.DefaultMaxActive, MaxPerDay: booking.DefaultMaxPerDay,
			RefundFullHours: 48, RefundPartialPercent: 50, RefundPartialHours: 2})
		must(t, err)
		// A generous store timeout: the racing calls queue for SQLite's one
		// writer on a shared machine.
		svc := service.NewService(s, service.Options{Now: clk, Payments: prov, Currency: payments.WeChatCurrency, Timeout: 30 * time.Second})
		r := runner(t, s, Config{Service: svc, Notifier: &recorder{}}, true)

		const n = 8
		type place struct {
			a     booking.Appointment
			trade string
		}
		places := make([]place, n)
		for i := range places {
			p := f.patient()
			a := f.book(f.slot(1, 2500).ID, t0, p)[0]
			_, err := svc.Checkout(f.ctx, a.ID, p.ID, service.CheckoutTo{ReturnURL: "https://clinic.example/"})
			must(t, err)
			places[i] = place{a, payments.WeChatTradeNo(payments.CheckoutRequest{AppointmentID: a.ID, Amount: 2500, Currency: "CNY",
				Description: fmt.Sprintf("Appointment %d", a.ID), ExpiresAt: *a.HoldExpiresAt})}
		}
		now.Store(t0.Add(time.Minute).UnixNano())
		release(3*n, func(g int) {
			p := places[g%n]
			if g/n == 2 {
				if _, err := svc.Cancel(f.ctx, p.a.ID, p.a.PatientID); err != nil {
					t.Errorf("cancel %d: %v", p.a.ID, err)
				}
				return
			}
			h, body := fake.Pay(p.trade, clk())
			_, err := svc.PaymentNotification(f.ctx, service.ProviderWeChat, h, body)
			if err != nil && booking.ErrorCode(err) != booking.CodePaymentRejected {
				t.Errorf("notification of %d: %v", p.a.ID, err)
			}
		})

		byAppt := map[int64]booking.Refund{}
		eventually(t, "every refund paid back", 60*time.Second, func() bool {
			done := 0
			for _, p := range places {
				rs, err := svc.AppointmentRefunds(f.ctx, p.a.ID, 0)
				must(t, err)
				if len(rs) > 1 {
					t.Fatalf("appointment %d: %d refunds", p.a.ID, len(rs))
				}
				if len(rs) == 1 && rs[0].State == booking.RefundSucceeded {
					byAppt[p.a.ID] = rs[0]
					done++
				}
			}
			return done == n
		})
		paidBack := map[string]int64{}
		for _, rf := range fake.Refunds() {
			paidBack[rf.OutRefundNo] += rf.Amount
		}
		for _, p := range places {
			rf := byAppt[p.a.ID]
			want := map[string]int64{booking.RefundPatientCancel: 1250, booking.RefundLatePayment: 2500}[rf.Reason]
			if want == 0 || rf.AmountCents != want || paidBack[(payments.RefundRequest{RefundID: rf.ID}).IdempotencyKey()] != want {
				t.Fatalf("appointment %d: refund %+v, WeChat Pay paid back %d; want %d", p.a.ID, rf, paidBack[(payments.RefundRequest{RefundID: rf.ID}).IdempotencyKey()], want)
			}
		}
		if len(fake.Refunds()) != n {
			t.Fatalf("WeChat Pay made %d refunds, want %d", len(fake.Refunds()), n)
		}

		// The day against WeChat Pay's bill: clean.
		now.Store(t0.Add(time.Hour).UnixNano())
		cst := time.FixedZone("CST", 8*3600)
		day := t0.In(cst)
		c, err := svc.ReconcileStatement(f.ctx, day)
		must(t, err)
		if c.Source != "provider" || c.Lines != 2*n || c.Recorded != 2*n || len(c.Differences) != 0 || c.Day != "2026-06-01" {
			t.Fatalf("statement check %+v: want %d lines, matched, no difference", c, 2*n)
		}

		// A trade slotd never ordered, and a payment notified for less than
		// its order: their own kinds.
		fake.AddTrade("4200stranger", 900, clk())
		p := f.patient()
		a := f.book(f.slot(1, 2500).ID, clk(), p)[0]
		_, err = svc.Checkout(f.ctx, a.ID, p.ID, service.CheckoutTo{ReturnURL: "https://clinic.example/"})
		must(t, err)
		trade := payments.WeChatTradeNo(payments.CheckoutRequest{AppointmentID: a.ID, Amount: 2500, Currency: "CNY",
			Description: fmt.Sprintf("Appointment %d", a.ID), ExpiresAt: clk().Add(15 * time.Minute)})
		fake.Pay(trade, clk())
		o, _ := fake.Order(trade)
		h, body := wechatfake.Notice("TRANSACTION.SUCCESS", wechatfake.Transaction(o, 2000), clk())
		if _, err := svc.PaymentNotification(f.ctx, service.ProviderWeChat, h, body); booking.ErrorCode(err) != booking.CodePaymentRejected {
			t.Fatalf("a payment of another amount: %v", err)
		}
		eventually(t, "the mismatched payment's refund", 30*time.Second, func() bool {
			rs, err := svc.AppointmentRefunds(f.ctx, a.ID, 0)
			must(t, err)
			return len(rs) == 1 && rs[0].State == booking.RefundSucceeded
		})
		c, err = svc.ReconcileStatement(f.ctx, day)
		must(t, err)
		if k := c.Kinds(); k[booking.StatementUnknown] != 1 || k[booking.StatementAmount] != 1 || k[booking.StatementMissing] != 0 {
			t.Fatalf("differences %+v (%v): want the stranger unknown and the payment's amount", c.Differences, k)
		}
		if last, ok := svc.LastStatementCheck(); !ok || len(last.Differences) != 2 {
			t.Fatalf("the last check kept: %+v, %v", last, ok)
		}
		drained(t, r)
	})
}

// release runs fn in n goroutines released at the same moment and waits
// for them.
func release(n int, fn func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}
