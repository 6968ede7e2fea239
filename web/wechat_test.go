package web

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/wechatfake"
	"github.com/slotd/slotd/service"
)

// TestWeChatPayPage: with WeChat Pay as the provider, the held
// appointment's Pay button shows the Native order's QR code (a PNG data
// URL), the same order each time; once WeChat Pay's notification
// arrives the appointment's page says it is booked.
func TestWeChatPayPage(t *testing.T) {
	fake := wechatfake.New(t)
	s := plain(t, newSite(t, withoutSamples(), withService(func(o *service.Options) {
		p, err := payments.NewWeChat(fake.Config())
		must(t, err)
		o.Payments, o.Currency, o.BookingRate = p, payments.WeChatCurrency, 100
	})))
	ctx := context.Background()
	c := s.client(t)
	res := s.svc.Book(ctx, s.patient.ID, s.paid.ID, "wechat-1")
	must(t, res.Err)
	a := res.Appointment
	page := get(t, c, fmt.Sprintf("%s/appointments/%d", s.url, a.ID))
	action := fmt.Sprintf("/appointments/%d/checkout", a.ID)
	for range 2 {
		r, err := c.PostForm(s.url+action, url.Values{"csrf": {formValue(t, page, action, "csrf")}})
		must(t, err)
		raw, _ := io.ReadAll(r.Body)
		r.Body.Close()
		body := string(raw)
		if r.StatusCode != http.StatusOK || !strings.Contains(body, `src="data:image/png;base64,`) || !strings.Contains(body, "Scan this code with WeChat") {
			t.Fatalf("pay: %d, want the QR page:\n%s", r.StatusCode, body)
		}
	}
	o := fake.OnlyOrder()
	if o.Total != 2500 || o.Currency != "CNY" {
		t.Fatalf("order %+v", o)
	}
	h, body := fake.Pay(o.OutTradeNo, time.Now())
	if _, err := s.svc.PaymentNotification(ctx, service.ProviderWeChat, h, body); err != nil {
		t.Fatal(err)
	}
	if got := html.UnescapeString(get(t, c, fmt.Sprintf("%s/appointments/%d?paid=1", s.url, a.ID))); !strings.Contains(got, "Payment received: you are booked.") {
		t.Fatal("back after the notification: no 'booked' notice")
	}
}
