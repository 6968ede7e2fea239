package payments_test

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/wechatfake"
)

func newWeChat(t *testing.T, fake *wechatfake.Fake) *payments.WeChat {
	p, err := payments.NewWeChat(fake.Config())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWeChatCheckout: a Native order answers its code_url, the same
// checkout again the same order; with the payer's openid a JSAPI order
// answers wx.requestPayment's parameters, signed with the merchant's key.
func TestWeChatCheckout(t *testing.T) {
	fake := wechatfake.New(t)
	p := newWeChat(t, fake)
	req := payments.CheckoutRequest{AppointmentID: 42, Amount: 5000, Currency: "CNY", Description: "Appointment 42",
		ReturnURL: "https://clinic.example/appointments/42?paid=1", ExpiresAt: time.Now().Add(15 * time.Minute)}
	c1, err := p.Checkout(context.Background(), req)
	if err != nil || !strings.HasPrefix(c1.Params["codeUrl"], "weixin://wxpay/bizpayurl?pr=") || c1.RedirectURL != "" {
		t.Fatalf("native: %+v, %v", c1, err)
	}
	c2, err := p.Checkout(context.Background(), req)
	if err != nil || c2.Params["codeUrl"] != c1.Params["codeUrl"] {
		t.Fatalf("again: %+v, %v; want the same order", c2, err)
	}
	o := fake.OnlyOrder()
	if o.OutTradeNo != payments.WeChatTradeNo(req) || !strings.HasPrefix(o.OutTradeNo, "A42-") || o.Total != 5000 || o.Currency != "CNY" {
		t.Fatalf("order %+v", o)
	}

	req.PayerID = "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"
	j, err := p.Checkout(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if j.Params["appId"] != wechatfake.AppID || !strings.HasPrefix(j.Params["package"], "prepay_id=wx") || j.Params["signType"] != "RSA" {
		t.Fatalf("jsapi params %+v", j.Params)
	}
	if jo, ok := fake.Order(payments.WeChatTradeNo(req)); !ok || jo.Payer != req.PayerID {
		t.Fatalf("jsapi order %+v", jo)
	}
	sig, _ := base64.StdEncoding.DecodeString(j.Params["paySign"])
	d := sha256.Sum256([]byte(j.Params["appId"] + "\n" + j.Params["timeStamp"] + "\n" + j.Params["nonceStr"] + "\n" + j.Params["package"] + "\n"))
	if err := rsa.VerifyPKCS1v15(&fake.Config().MerchantKey.PublicKey, crypto.SHA256, d[:], sig); err != nil {
		t.Fatalf("paySign: %v", err)
	}

	req.Currency = "EUR"
	if _, err := p.Checkout(context.Background(), req); err == nil {
		t.Fatal("a checkout in EUR was placed with WeChat Pay")
	}
}

// TestWeChatNotification: only a notification signed with the platform
// key, unchanged, fresh and not seen before is parsed; its resource is
// decrypted with the API v3 key.
func TestWeChatNotification(t *testing.T) {
	fake := wechatfake.New(t)
	p := newWeChat(t, fake)
	req := payments.CheckoutRequest{AppointmentID: 7, Amount: 5000, Currency: "CNY", Description: "Appointment 7", ExpiresAt: time.Now().Add(time.Hour)}
	if _, err := p.Checkout(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	h, body := fake.Pay(payments.WeChatTradeNo(req), now)
	o := fake.OnlyOrder()
	n, err := p.Notification(h, body, now)
	if err != nil || n.Paid == nil || *n.Paid != (payments.Paid{AppointmentID: 7, Amount: 5000, Currency: "CNY", PaymentID: o.TransactionID}) {
		t.Fatalf("paid: %+v, %v", n.Paid, err)
	}
	if _, err := p.Notification(h, body, now); !errors.Is(err, payments.ErrUnverified) {
		t.Fatalf("the same nonce again: %v, want ErrUnverified", err)
	}

	fresh := func() (http.Header, []byte) {
		return wechatfake.Notice("TRANSACTION.SUCCESS", wechatfake.Transaction(o, 5000), now)
	}
	for name, mangle := range map[string]func(http.Header, []byte) (http.Header, []byte){
		"tampered body": func(h http.Header, b []byte) (http.Header, []byte) {
			return h, []byte(strings.Replace(string(b), `"event_type":"TRANSACTION.SUCCESS"`, `"event_type":"TRANSACTION.SUCCESS" `, 1))
		},
		"tampered signature": func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set(payments.HeaderWeChatSignature, "A"+h.Get(payments.HeaderWeChatSignature)[1:])
			return h, b
		},
		"old timestamp": func(_ http.Header, b []byte) (http.Header, []byte) {
			return wechatfake.Sign(b, now.Add(-payments.WeChatMaxSkew-time.Minute)), b
		},
		"another serial": func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set(payments.HeaderWeChatSerial, "PUB_KEY_ID_OTHER")
			return h, b
		},
		"unsigned": func(_ http.Header, b []byte) (http.Header, []byte) { return http.Header{}, b },
	} {
		h, b := mangle(fresh())
		if _, err := p.Notification(h, b, now); !errors.Is(err, payments.ErrUnverified) {
			t.Errorf("%s: %v, want ErrUnverified", name, err)
		}
	}

	// Signed but of another merchant, or not decrypting: refused.
	other := wechatfake.Transaction(o, 5000)
	other["mchid"] = "1900000999"
	oh, ob := wechatfake.Notice("TRANSACTION.SUCCESS", other, now)
	if _, err := p.Notification(oh, ob, now); !errors.Is(err, payments.ErrUnverified) {
		t.Errorf("another merchant's payment: %v", err)
	}
	cfg := fake.Config()
	cfg.APIv3Key = strings.Repeat("x", 32)
	wrongKey, err := payments.NewWeChat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wh, wb := fresh()
	if n, err := wrongKey.Notification(wh, wb, now); err == nil {
		t.Errorf("decrypted with another API v3 key: %+v", n)
	}

	// A refund's outcome.
	rf := wechatfake.Refund{OutRefundNo: payments.RefundRequest{RefundID: 9}.IdempotencyKey(), RefundID: "503001", TransactionID: o.TransactionID, Amount: 5000, Total: 5000}
	rh, rb := wechatfake.Notice("REFUND.SUCCESS", wechatfake.RefundResource(rf, "SUCCESS"), now)
	n, err = p.Notification(rh, rb, now)
	if err != nil || n.Refund == nil || *n.Refund != (payments.RefundUpdate{RefundID: 9, ProviderRef: "503001"}) {
		t.Fatalf("refund success: %+v, %v", n.Refund, err)
	}
	rh, rb = wechatfake.Notice("REFUND.ABNORMAL", wechatfake.RefundResource(rf, "ABNORMAL"), now)
	n, err = p.Notification(rh, rb, now)
	if err != nil || n.Refund == nil || n.Refund.Failure == "" {
		t.Fatalf("refund abnormal: %+v, %v", n.Refund, err)
	}
	// A payment not yet successful, or another event: nothing to act on.
	unpaid := wechatfake.Transaction(o, 5000)
	unpaid["trade_state"] = "NOTPAY"
	for _, ev := range []struct {
		typ string
		res any
	}{{"TRANSACTION.SUCCESS", unpaid}, {"TRANSACTION.CLOSED", wechatfake.Transaction(o, 5000)}} {
		h, b := wechatfake.Notice(ev.typ, ev.res, now)
		if n, err := p.Notification(h, b, now); err != nil || n.Paid != nil || n.Refund != nil {
			t.Errorf("%s: %+v, %v; want nothing", ev.typ, n, err)
		}
	}
}

// TestWeChatRefund: out_refund_no is slotd's refund id, so the retry
// after a 500 and a repeat make one refund; more than the order's total
// is refused.
func TestWeChatRefund(t *testing.T) {
	fake := wechatfake.New(t)
	p := newWeChat(t, fake)
	req := payments.CheckoutRequest{AppointmentID: 8, Amount: 5000, Currency: "CNY", Description: "Appointment 8", ExpiresAt: time.Now().Add(time.Hour)}
	if _, err := p.Checkout(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	fake.Pay(payments.WeChatTradeNo(req), time.Now())
	txn := fake.OnlyOrder().TransactionID
	fake.SetFail5xx(1)
	rr := payments.RefundRequest{RefundID: 3, TradeNo: txn, Amount: 2500, Currency: "CNY"}
	if _, err := p.Refund(context.Background(), rr); err == nil {
		t.Fatal("a 500 was taken for a refund")
	}
	ref, err := p.Refund(context.Background(), rr)
	if err != nil || ref == "" {
		t.Fatalf("retry: %q, %v", ref, err)
	}
	if again, err := p.Refund(context.Background(), rr); err != nil || again != ref {
		t.Fatalf("repeat: %q, %v; want %q", again, err, ref)
	}
	if rs := fake.Refunds(); len(rs) != 1 || rs[0].Amount != 2500 || rs[0].Total != 5000 || rs[0].OutRefundNo != "slotd-refund-3" {
		t.Fatalf("refunds %+v", rs)
	}
	if _, err := p.Refund(context.Background(), payments.RefundRequest{RefundID: 4, TradeNo: txn, Amount: 5000, Currency: "CNY"}); err == nil {
		t.Fatal("refunded more than was left")
	}
	if _, err := p.Refund(context.Background(), payments.RefundRequest{RefundID: 5, TradeNo: "4200unknown", Amount: 1, Currency: "CNY"}); err == nil {
		t.Fatal("refunded an unknown order")
	}
}

func TestNewWeChatNeedsKeys(t *testing.T) {
	cfg := wechatfake.New(t).Config()
	cfg.APIv3Key = "short"
	if _, err := payments.NewWeChat(cfg); err == nil {
		t.Fatal("a wechat provider with a short API v3 key")
	}
	cfg = wechatfake.New(t).Config()
	cfg.PlatformKey = nil
	if _, err := payments.NewWeChat(cfg); err == nil {
		t.Fatal("a wechat provider without the platform key")
	}
}

// TestWeChatStatement: the day's trade bill, downloaded with a signed
// request and checked against its digest, lists the payments by
// transaction id and order amount and the refunds with slotd's refund id.
func TestWeChatStatement(t *testing.T) {
	fake := wechatfake.New(t)
	p := newWeChat(t, fake)
	req := payments.CheckoutRequest{AppointmentID: 9, Amount: 5000, Currency: "CNY", Description: "Appointment 9", ExpiresAt: time.Now().Add(time.Hour)}
	if _, err := p.Checkout(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	fake.Pay(payments.WeChatTradeNo(req), now)
	txn := fake.OnlyOrder().TransactionID
	ref, err := p.Refund(context.Background(), payments.RefundRequest{RefundID: 11, TradeNo: txn, Amount: 2500, Currency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	fake.AddTrade("4200stranger", 123, now)
	fake.AddTrade("4200yesterday", 456, now.Add(-24*time.Hour))
	cst := time.FixedZone("CST", 8*3600)
	y, m, d := now.In(cst).Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, cst)
	lines, err := p.Statement(context.Background(), from, from.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]booking.StatementLine{}
	for _, l := range lines {
		got[l.Kind+" "+l.TradeNo] = l
	}
	if len(lines) != 3 || got["payment "+txn].Amount != 5000 || got["payment 4200stranger"].Amount != 123 ||
		got["refund "+txn].Amount != 2500 || got["refund "+txn].RefundID != 11 || got["refund "+txn].RefundRef != ref {
		t.Fatalf("statement %+v", lines)
	}
	if none, err := p.Statement(context.Background(), from.AddDate(0, 0, -7), from.AddDate(0, 0, -6)); err != nil || len(none) != 0 {
		t.Fatalf("a day without trades: %+v, %v; want an empty statement", none, err)
	}
	if d := got["payment "+txn].At.Sub(now); d > time.Second || d < -time.Second {
		t.Fatalf("paid at %v, want %v", got["payment "+txn].At, now)
	}
}
