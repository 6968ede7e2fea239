package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// TestSigninStatuses: every problem of the sign-in pages is answered with
// the problem table's status for its code (data-code on the page).
func TestSigninStatuses(t *testing.T) {
	ctx := context.Background()
	// A still clock: the sign-in limits refill as time passes, which a slow
	// run (bcrypt under -race) would otherwise reach.
	t0 := time.Now()
	ws := newSite(t, withoutSamples(), withDemo(), withClock(func() time.Time { return t0 }),
		withConfig(func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) }))
	srv, st := ws.srv, ws.store
	if _, err := st.CreatePatient(ctx, booking.Patient{Name: "A", Phone: "+33600000001"}); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	c.CheckRedirect = noRedirect
	c.Jar, _ = cookiejar.New(nil) // the CSRF cookie

	res, err := c.Get(srv.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	page := readAll(t, res)
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		form.Set("csrf", between(between(page, `action="`+path+`"`, `</form>`), `name="csrf" value="`, `"`))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, readAll(t, res)
	}
	expect := func(what string, status int, body string, code booking.Code) {
		t.Helper()
		if want := problem.Status(code); status != want || !strings.Contains(body, `data-code="`+string(code)+`"`) {
			t.Fatalf("%s: %d, want %d with data-code %q", what, status, want, code)
		}
	}

	status, body := post("/signin", url.Values{"phone": {"not a phone"}})
	expect("bad phone", status, body, booking.CodeInvalidRequest)
	status, page = post("/signin", url.Values{"phone": {"+33600000001"}})
	if status != http.StatusOK || !strings.Contains(page, "data-demo-code") {
		t.Fatalf("phone step: %d", status)
	}
	code := between(page, `data-demo-code>`, `<`)
	wrong := "000000"
	if code == wrong {
		wrong = "000001"
	}
	status, body = post("/signin/verify", url.Values{"phone": {"+33600000001"}, "code": {"12"}})
	expect("short code", status, body, booking.CodeInvalidRequest)
	status, body = post("/signin/verify", url.Values{"phone": {"+33600000002"}, "code": {code}})
	expect("no code for that phone", status, body, booking.CodeNotFound)
	for i := 0; i < 5; i++ {
		status, body = post("/signin/verify", url.Values{"phone": {"+33600000001"}, "code": {wrong}})
		expect("wrong code", status, body, booking.CodeInvalidRequest)
	}
	status, body = post("/signin/verify", url.Values{"phone": {"+33600000001"}, "code": {code}})
	expect("attempts used up", status, body, booking.CodeRateLimited)

	// A deactivated patient gets the same code step as anyone (no telling
	// who is registered) but the right code signs nobody in.
	gone, err := st.CreatePatient(ctx, booking.Patient{Name: "B", Phone: "+33600000003"})
	if err != nil {
		t.Fatal(err)
	}
	inactive := false
	if _, err := st.UpdatePatient(ctx, gone.ID, booking.PatientUpdate{Active: &inactive}); err != nil {
		t.Fatal(err)
	}
	status, page = post("/signin", url.Values{"phone": {"+33600000003"}})
	if status != http.StatusOK {
		t.Fatalf("phone step of a deactivated patient: %d", status)
	}
	status, body = post("/signin/verify", url.Values{"phone": {"+33600000003"}, "code": {between(page, `data-demo-code>`, `<`)}})
	expect("deactivated patient", status, body, booking.CodeBookingBlocked)
	u, _ := url.Parse(srv.URL)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == sessionCookie {
			t.Fatal("a deactivated patient got a session")
		}
	}

	// Staff: a wrong password, then the name is locked (in the database,
	// for every instance), also against the right password.
	hash, err := accounts.HashPassword("right-password")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetStaffPassword(ctx, "admin", hash, t0); err != nil {
		t.Fatal(err)
	}
	res, err = c.Get(srv.URL + "/staff/signin")
	if err != nil {
		t.Fatal(err)
	}
	page = readAll(t, res)
	if !strings.Contains(page, `name="code"`) {
		t.Fatal("the staff sign-in page has no code field")
	}
	for i := 0; i < booking.StaffFreeFailures; i++ {
		status, body = post("/staff/signin", url.Values{"name": {"admin"}, "password": {"nope"}})
		expect("wrong staff password", status, body, booking.CodeUnauthorized)
	}
	status, body = post("/staff/signin", url.Values{"name": {"admin"}, "password": {"right-password"}})
	expect("staff name locked", status, body, booking.CodeRateLimited)
	// Too long a password is refused before bcrypt.
	status, body = post("/staff/signin", url.Values{"name": {"other"}, "password": {strings.Repeat("x", 300)}})
	expect("staff password too long", status, body, booking.CodeUnauthorized)
}

// TestStaffSigninTOTP: a staff user with a second factor signs in with
// the password and a code; the same code again is refused; an admin
// without one is told to enrol when the clinic requires it; the lockout
// answers Retry-After.
func TestStaffSigninTOTP(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	ws := newSite(t, withoutSamples(), withClock(func() time.Time { return t0 }),
		withService(func(o *service.Options) { o.StaffTOTPRequired = true }),
		withConfig(func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) }))
	srv, st, svc := ws.srv, ws.store, ws.svc
	hash, err := accounts.HashPassword("right-password")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob"} {
		if err := st.SetStaffPassword(ctx, name, hash, t0); err != nil {
			t.Fatal(err)
		}
	}
	secret, _, err := svc.EnrolStaffTOTP(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	code, err := accounts.TOTPCode(secret, t0)
	if err != nil {
		t.Fatal(err)
	}
	post := func(form url.Values) *http.Response {
		t.Helper()
		c := srv.Client()
		c.CheckRedirect = noRedirect
		c.Jar, _ = cookiejar.New(nil)
		res, err := c.Get(srv.URL + "/staff/signin")
		if err != nil {
			t.Fatal(err)
		}
		page := readAll(t, res)
		form.Set("csrf", between(between(page, `action="/staff/signin"`, `</form>`), `name="csrf" value="`, `"`))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/staff/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err = c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	form := func(name, code string) url.Values {
		return url.Values{"name": {name}, "password": {"right-password"}, "code": {code}}
	}
	if res := post(form("alice", "")); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no code: %d", res.StatusCode)
	}
	if res := post(form("alice", code)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("right code: %d", res.StatusCode)
	}
	if res := post(form("alice", code)); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("replayed code: %d", res.StatusCode)
	}
	res := post(form("bob", ""))
	body := readAll(t, res)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "slotd staff-totp --user bob") {
		t.Fatalf("admin without a second factor: %d", res.StatusCode)
	}
	// One replay counted above, four wrong codes: locked.
	for range booking.StaffFreeFailures - 1 {
		post(form("alice", "000000"))
	}
	res = post(form("alice", code))
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "60" {
		t.Fatalf("locked: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
}
