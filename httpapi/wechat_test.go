package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/wechatfake"
	"github.com/slotd/slotd/service"
)

// TestWeChatNotify: the checkout answers the Native order's code_url, or
// with payerId the JSAPI parameters; POST /api/payments/wechat takes only
// notifications signed with the platform key, fresh and not replayed; a
// payment books the held appointment once; a wrong amount is kept and
// refunded.
func TestWeChatNotify(t *testing.T) {
	fake := wechatfake.New(t)
	e := newEnv(t, withService(func(o *service.Options) {
		p, err := payments.NewWeChat(fake.Config())
		if err != nil {
			t.Fatal(err)
		}
		o.Payments, o.Currency = p, payments.WeChatCurrency
	}))
	f := e.fixture()
	a := e.hold(f, 5000)
	path := fmt.Sprintf("/api/appointments/%d/checkout", a.ID)
	var co, jsapi checkoutAnswer
	e.do(call{method: "POST", path: path, token: e.patientToken(a.PatientID), body: map[string]any{"returnUrl": "https://clinic.example/back"}}).expect(t, 200).decode(t, &co)
	if !strings.HasPrefix(co.Params["codeUrl"], "weixin://") || co.RedirectURL != "" || !co.ExpiresAt.Equal(*a.HoldExpiresAt) {
		t.Fatalf("native checkout %+v", co)
	}
	e.do(call{method: "POST", path: path, token: e.patientToken(a.PatientID),
		body: map[string]any{"returnUrl": "https://clinic.example/back", "payerId": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}}).expect(t, 200).decode(t, &jsapi)
	if jsapi.Params["appId"] != wechatfake.AppID || !strings.HasPrefix(jsapi.Params["package"], "prepay_id=") || jsapi.Params["paySign"] == "" {
		t.Fatalf("jsapi checkout %+v", jsapi)
	}
	for _, bad := range []any{"with space", strings.Repeat("o", 65), 7} {
		c := call{method: "POST", path: path, token: e.patientToken(a.PatientID), body: map[string]any{"returnUrl": "https://clinic.example/back", "payerId": bad}, invalid: true}
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
	}

	notify := func(h http.Header, body []byte) call {
		hs := map[string]string{}
		for k := range h {
			hs[k] = h.Get(k)
		}
		return call{method: "POST", path: "/api/payments/wechat", body: body, header: hs}
	}
	native := payments.WeChatTradeNo(payments.CheckoutRequest{AppointmentID: a.ID, Amount: 5000, Currency: "CNY",
		Description: fmt.Sprintf("Appointment %d", a.ID), ExpiresAt: *a.HoldExpiresAt})
	h, body := fake.Pay(native, e.clock.Now())
	order, _ := fake.Order(native)
	before := e.snapshot()
	tampered := h.Clone()
	tampered.Set(payments.HeaderWeChatSignature, "A"+h.Get(payments.HeaderWeChatSignature)[1:])
	for name, c := range map[string]call{
		"tampered signature": notify(tampered, body),
		"tampered body":      notify(h, []byte(strings.Replace(string(body), `"id":`, ` "id":`, 1))),
		"old timestamp":      notify(wechatfake.Sign(body, e.clock.Now().Add(-10*time.Minute)), body),
	} {
		e.do(c).expect(t, 401, booking.CodeBadSignature)
		if e.snapshot() != before {
			t.Fatalf("%s: a refused notification changed the database", name)
		}
	}
	var ans notificationAnswer
	e.do(notify(h, body)).expect(t, 200).decode(t, &ans)
	if ans.Outcome != "applied" {
		t.Fatalf("paid: %+v", ans)
	}
	got, err := e.store.GetAppointment(context.Background(), a.ID)
	if err != nil || got.Status != booking.StatusBooked {
		t.Fatalf("after the payment: %s, %v; want BOOKED", got.Status, err)
	}
	booked := e.snapshot()
	e.do(notify(h, body)).expect(t, 401, booking.CodeBadSignature) // the same nonce: a replay
	e.do(notify(wechatfake.Sign(body, e.clock.Now()), body)).expect(t, 200).decode(t, &ans)
	if ans.Outcome != "duplicate" || e.snapshot() != booked {
		t.Fatalf("the notification sent again: %+v, or the database changed", ans)
	}

	// Another appointment paid a wrong amount: kept (200, so WeChat Pay
	// stops) and refunded in full.
	b := e.hold(f, 5000)
	order.OutTradeNo, order.TransactionID = fmt.Sprintf("A%d-00000000", b.ID), "4200000000wrong"
	e.do(notify(wechatfake.Notice("TRANSACTION.SUCCESS", wechatfake.Transaction(order, 4000), e.clock.Now()))).expect(t, 200).decode(t, &ans)
	if ans.Outcome != string(booking.CodePaymentRejected) {
		t.Fatalf("a wrong amount: %+v", ans)
	}
	rs, err := e.store.AppointmentRefunds(context.Background(), b.ID)
	if err != nil || len(rs) != 1 || rs[0].TradeNo != "4200000000wrong" || rs[0].AmountCents != 4000 {
		t.Fatalf("refunds %+v, %v; want the wrong amount's", rs, err)
	}
	// Stripe's endpoint is not WeChat Pay's.
	e.do(call{method: "POST", path: "/api/payments/stripe", body: body, header: map[string]string{"Stripe-Signature": "t=1,v1=00"}}).expect(t, 401, booking.CodeBadSignature)
}

// TestReconcileStatement: POST /api/admin/reconciliation/statement
// reconciles a day against WeChat Pay's trade bill: clean for payments
// slotd recorded, a trade it never ordered reported unknown; a future or
// malformed day is 400.
func TestReconcileStatement(t *testing.T) {
	fake := wechatfake.New(t)
	e := newEnv(t, withService(func(o *service.Options) {
		p, err := payments.NewWeChat(fake.Config())
		if err != nil {
			t.Fatal(err)
		}
		o.Payments, o.Currency = p, payments.WeChatCurrency
	}), withConfig(func(c *Config) { c.ClinicZone = "Asia/Shanghai" }))
	f := e.fixture()
	a := e.hold(f, 5000)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/appointments/%d/checkout", a.ID), token: e.patientToken(a.PatientID),
		body: map[string]any{"returnUrl": "https://clinic.example/back"}}).expect(t, 200)
	native := payments.WeChatTradeNo(payments.CheckoutRequest{AppointmentID: a.ID, Amount: 5000, Currency: "CNY",
		Description: fmt.Sprintf("Appointment %d", a.ID), ExpiresAt: *a.HoldExpiresAt})
	h, body := fake.Pay(native, e.clock.Now())
	hs := map[string]string{}
	for k := range h {
		hs[k] = h.Get(k)
	}
	e.do(call{method: "POST", path: "/api/payments/wechat", body: body, header: hs}).expect(t, 200)
	day := e.clock.Now().In(time.FixedZone("CST", 8*3600)).Format(time.DateOnly)
	path := "/api/admin/reconciliation/statement"
	var c booking.StatementCheck
	e.do(call{method: "POST", path: path, token: e.admin, body: map[string]any{"day": day}}).expect(t, 200).decode(t, &c)
	if c.Source != "provider" || c.Provider != "wechat" || c.Lines != 1 || len(c.Differences) != 0 {
		t.Fatalf("check %+v: want one payment, matched", c)
	}
	fake.AddTrade("4200stranger", 900, e.clock.Now())
	e.do(call{method: "POST", path: path, token: e.admin, body: map[string]any{"day": day}}).expect(t, 200).decode(t, &c)
	if len(c.Differences) != 1 || c.Differences[0].Kind != booking.StatementUnknown || c.Differences[0].Line.TradeNo != "4200stranger" {
		t.Fatalf("differences %+v: want the stranger unknown", c.Differences)
	}
	tomorrow := e.clock.Now().Add(48 * time.Hour).Format(time.DateOnly)
	for _, bad := range []any{tomorrow, "2026-13-01", "yesterday", 20261204} {
		e.do(call{method: "POST", path: path, token: e.admin, body: map[string]any{"day": bad}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
}
