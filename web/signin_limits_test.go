package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
)

// limited are the options of the sign-in limit tests: the pages behind a
// proxy trusted from loopback (so a test picks its client address with
// X-Forwarded-For), on a still clock, with the given code limits (0: the
// defaults), for three patients.
func limited(t *testing.T, codesPerAddress, codesPerMinute int) []siteOption {
	t.Helper()
	proxies, err := edge.ParseProxies("127.0.0.0/8,::1")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	return []siteOption{withoutSamples(), withClock(func() time.Time { return t0 }), withHandler(proxies.Handler),
		withPatients("+33600000001", "+33600000002", "+33600000003"),
		withConfig(func(c *Config) {
			c.CodesPerAddress, c.CodesPerMinute = codesPerAddress, codesPerMinute
			c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
		})}
}

// askCode posts the phone step from client address from and returns the
// status and the page's data-code ("" when none).
func askCode(t *testing.T, srv *httptest.Server, from, phone string) (int, string) {
	t.Helper()
	c := srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	get, _ := http.NewRequest("GET", srv.URL+"/signin", nil)
	get.Header.Set("X-Forwarded-For", from)
	res, err := c.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	page := readAll(t, res)
	form := url.Values{"phone": {phone}, "csrf": {between(between(page, `action="/signin"`, `</form>`), `name="csrf" value="`, `"`)}}
	req, _ := http.NewRequest("POST", srv.URL+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", from)
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	return res.StatusCode, between(body, `data-code="`, `"`)
}

// One address cannot make the clinic text patient after patient: its code
// requests are limited whatever the phone (registered or not), while
// another address still gets its code.
func TestSigninCodesArePerAddressLimited(t *testing.T) {
	srv := newSite(t, limited(t, 2, 100)...).srv
	for _, ph := range []string{"+33600000001", "+33699999999"} {
		if status, code := askCode(t, srv, "203.0.113.1", ph); status != 200 || code != "" {
			t.Fatalf("%s: %d %q", ph, status, code)
		}
	}
	if status, code := askCode(t, srv, "203.0.113.1", "+33600000002"); status != 429 || code != string(booking.CodeRateLimited) {
		t.Fatalf("third code from one address: %d %q", status, code)
	}
	if status, _ := askCode(t, srv, "203.0.113.2", "+33600000002"); status != 200 {
		t.Fatalf("another address: %d", status)
	}
}

// The clinic's budget of codes per minute holds across addresses.
func TestSigninCodesHaveAGlobalBudget(t *testing.T) {
	srv := newSite(t, limited(t, 100, 2)...).srv
	askCode(t, srv, "203.0.113.1", "+33600000001")
	askCode(t, srv, "203.0.113.2", "+33600000002")
	if status, code := askCode(t, srv, "203.0.113.3", "+33600000003"); status != 429 || code != string(booking.CodeRateLimited) {
		t.Fatalf("over the budget from a new address: %d %q", status, code)
	}
}

// Cookies are Secure when a trusted proxy says the client used https, and
// only then; HSTS comes with it.
func TestCookiesSecureBehindATrustedTLSProxy(t *testing.T) {
	srv := newSite(t, limited(t, 0, 0)...).srv
	for _, proto := range []string{"https", "http"} {
		req, _ := http.NewRequest("GET", srv.URL+"/signin", nil)
		req.Header.Set("X-Forwarded-Proto", proto)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, res)
		var secure bool
		for _, ck := range res.Cookies() {
			if ck.Name == csrfCookie {
				secure = ck.Secure
			}
		}
		if secure != (proto == "https") || (res.Header.Get("Strict-Transport-Security") != "") != (proto == "https") {
			t.Fatalf("X-Forwarded-Proto %s: Secure %v, HSTS %q", proto, secure, res.Header.Get("Strict-Transport-Security"))
		}
	}
}
