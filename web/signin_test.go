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

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// TestSigninStatuses: every problem of the sign-in pages is answered with
// the problem table's status for its code (data-code on the page).
func TestSigninStatuses(t *testing.T) {
	ctx := context.Background()
	// A still clock: the staff limiter refills one attempt every 12 s, which
	// a slow run (bcrypt under -race) would otherwise reach.
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

	// Staff: a wrong password, then too many attempts.
	res, err = c.Get(srv.URL + "/staff/signin")
	if err != nil {
		t.Fatal(err)
	}
	page = readAll(t, res)
	for i := 0; i < 5; i++ {
		status, body = post("/staff/signin", url.Values{"name": {"admin"}, "password": {"nope"}})
		expect("wrong staff password", status, body, booking.CodeUnauthorized)
	}
	status, body = post("/staff/signin", url.Values{"name": {"admin"}, "password": {"nope"}})
	expect("staff attempts used up", status, body, booking.CodeRateLimited)
}
