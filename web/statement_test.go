package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/payments/wechatfake"
	"github.com/slotd/slotd/service"
)

// TestStaffStatement: on the reconciliation page staff check a day
// against WeChat Pay's trade bill; the page lists what differs (here a
// trade slotd never ordered) beside the day's counts. The clinic is in
// China, as WeChat Pay's are: the day is its own (from 16:00 UTC, China's
// date is a day ahead of UTC's).
func TestStaffStatement(t *testing.T) {
	const zone = "Asia/Shanghai"
	cst, err := time.LoadLocation(zone)
	must(t, err)
	fake := wechatfake.New(t)
	s := plain(t, newSite(t, withoutSamples(), withConfig(func(c *Config) { c.ClinicZone = zone }), withService(func(o *service.Options) {
		p, err := payments.NewWeChat(fake.Config())
		must(t, err)
		o.Payments, o.Currency = p, payments.WeChatCurrency
	})))
	ctx := context.Background()
	res := s.svc.Book(ctx, s.patient.ID, s.paid.ID, "statement-1")
	must(t, res.Err)
	a := res.Appointment
	_, err = s.svc.Checkout(ctx, a.ID, a.PatientID, service.CheckoutTo{ReturnURL: "https://clinic.example/"})
	must(t, err)
	h, body := fake.Pay(fake.OnlyOrder().OutTradeNo, time.Now())
	_, err = s.svc.PaymentNotification(ctx, service.ProviderWeChat, h, body)
	must(t, err)
	fake.AddTrade("4200stranger", 900, time.Now())

	tok, err := s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	must(t, err)
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.url)
	jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: tok, Path: "/"}})
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := get(t, c, s.url+"/staff/reconciliation")
	if !strings.Contains(page, `id="statement-verdict"`) || !strings.Contains(page, "No day has been reconciled") {
		t.Fatal("the page lacks the statement section")
	}
	day := time.Now().In(cst).Format(time.DateOnly)
	action := "/staff/reconciliation/statement"
	r := post(t, c, s.url+action, url.Values{"csrf": {formValue(t, page, action, "csrf")}, "day": {day}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("check: %d", r.StatusCode)
	}
	got := html.UnescapeString(get(t, c, s.url+"/staff/reconciliation?statement=1"))
	for _, want := range []string{fmt.Sprintf("%s: 1 differences between the provider's 2 lines and slotd's 1 records", day),
		`data-difference="statement_unknown"`, "4200stranger", "at the provider, unknown to slotd"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if r := post(t, c, s.url+action, url.Values{"csrf": {formValue(t, page, action, "csrf")}, "day": {"someday"}}); r.StatusCode != http.StatusBadRequest {
		t.Fatalf("a malformed day: %d, want 400", r.StatusCode)
	}
}
