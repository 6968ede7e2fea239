package jobs

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/wechatfake"
	"github.com/slotd/slotd/service"
)

// TestWeChatEndToEnd (both stores): a held appointment is ordered at
// WeChat Pay (a local fake) and booked by the signed notification; the
// notification sent again changes nothing, its exact replay (the same
// nonce) is refused; a payment whose hold expired while it was in flight
// becomes a refund, asked of WeChat Pay by the refund job (retried after
// a 500 with the same out_refund_no), and WeChat Pay's refund
// notification changes nothing more.
func TestWeChatEndToEnd(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		fake := wechatfake.New(t)
		fake.SetFail5xx(1)
		var now atomic.Int64
		now.Store(t0.UnixNano())
		clk := func() time.Time { return time.Unix(0, now.Load()) }
		prov, err := payments.NewWeChat(fake.Config())
		must(t, err)
		svc := service.NewService(s, service.Options{Now: clk, Payments: prov, Currency: payments.WeChatCurrency})
		r := runner(t, s, Config{Service: svc, Notifier: &recorder{}}, true)
		order := func(id, patient int64) wechatfake.Order {
			t.Helper()
			c, err := svc.Checkout(f.ctx, id, patient, service.CheckoutTo{ReturnURL: "https://clinic.example/"})
			must(t, err)
			if !strings.HasPrefix(c.Params["codeUrl"], "weixin://") {
				t.Fatalf("checkout %+v: want a Native order's code_url", c)
			}
			a, err := svc.Appointment(f.ctx, id, 0)
			must(t, err)
			o, ok := fake.Order(payments.WeChatTradeNo(payments.CheckoutRequest{AppointmentID: id, Amount: 2500, Currency: "CNY",
				Description: "Appointment " + strconv.FormatInt(id, 10), ExpiresAt: *a.HoldExpiresAt}))
			if !ok {
				t.Fatalf("no order of appointment %d", id)
			}
			return o
		}

		p := f.patient()
		a := f.book(f.slot(1, 2500).ID, t0, p)[0]
		o := order(a.ID, p.ID)
		h, body := fake.Pay(o.OutTradeNo, clk())
		res, err := svc.PaymentNotification(f.ctx, service.ProviderWeChat, h, body)
		if err != nil || res.Payment == nil || res.Payment.Appointment.Status != booking.StatusBooked {
			t.Fatalf("paid: %+v, %v", res.Payment, err)
		}
		if _, err := svc.PaymentNotification(f.ctx, service.ProviderWeChat, h, body); booking.ErrorCode(err) != booking.CodeBadSignature {
			t.Fatalf("the same nonce again: %v, want bad-signature", err)
		}
		res, err = svc.PaymentNotification(f.ctx, service.ProviderWeChat, wechatfake.Sign(body, clk()), body)
		if err != nil || res.Payment == nil || !res.Payment.Duplicate {
			t.Fatalf("sent again: %+v, %v; want a duplicate", res.Payment, err)
		}
		if _, err := svc.PaymentNotification(f.ctx, service.ProviderWeChat, wechatfake.Sign(body, clk().Add(-6*time.Minute)), body); booking.ErrorCode(err) != booking.CodeBadSignature {
			t.Fatalf("an old timestamp: %v", err)
		}

		// Paid after the hold's deadline: recorded, the hold expired,
		// refunded through WeChat Pay.
		q := f.patient()
		late := f.book(f.slot(1, 2500).ID, t0, q)[0]
		lo := order(late.ID, q.ID)
		now.Store(t0.Add(20 * time.Minute).UnixNano())
		h, body = fake.Pay(lo.OutTradeNo, clk())
		if _, err := svc.PaymentNotification(f.ctx, service.ProviderWeChat, h, body); booking.ErrorCode(err) != booking.CodePaymentRejected {
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
		made := fake.Refunds()
		if refund.Reason != booking.RefundLatePayment || refund.AmountCents != 2500 || refund.Attempts != 2 || refund.TradeNo != lo.TransactionID ||
			len(made) != 1 || made[0].RefundID != refund.ProviderRef || made[0].OutRefundNo != (payments.RefundRequest{RefundID: refund.ID}).IdempotencyKey() {
			t.Fatalf("refund %+v, at WeChat Pay %+v: want the late payment's, paid once on the second attempt", refund, made)
		}
		rh, rb := wechatfake.Notice("REFUND.SUCCESS", wechatfake.RefundResource(made[0], "SUCCESS"), clk())
		res, err = svc.PaymentNotification(f.ctx, service.ProviderWeChat, rh, rb)
		if err != nil || res.Refund == nil || res.Refund.State != booking.RefundSucceeded || res.Refund.Attempts != refund.Attempts || res.Reversed {
			t.Fatalf("refund notification: %+v, %v; want the settled refund unchanged", res, err)
		}
		drained(t, r)
	})
}
