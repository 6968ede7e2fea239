package web

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
)

// Ten wrong codes of a phone in a day, over its codes, are answered with
// the day's page (429, Retry-After), even for a fresh right code.
func TestSigninPhoneDayLimitPage(t *testing.T) {
	site := newSite(t, append(limited(t, 0, 0), withDemo(), withConfig(func(c *Config) { c.SigninPerMinute = 100 }))...)
	srv := site.srv
	c := srv.Client()
	c.CheckRedirect = noRedirect
	c.Jar, _ = cookiejar.New(nil)
	res, err := c.Get(srv.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	page := readAll(t, res)
	csrf := func(path string) string {
		return between(between(page, `action="`+path+`"`, `</form>`), `name="csrf" value="`, `"`)
	}
	post := func(path string, form url.Values) (*http.Response, string) {
		t.Helper()
		form.Set("csrf", csrf(path))
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res, readAll(t, res)
	}
	const ph = "+33600000001"
	askCode := func() string {
		t.Helper()
		res, body := post("/signin", url.Values{"phone": {ph}})
		if res.StatusCode != http.StatusOK {
			t.Fatalf("phone step: %d", res.StatusCode)
		}
		page = body
		return between(body, `data-demo-code>`, `<`)
	}
	for n := 0; n < 10; {
		code := askCode()
		wrong := "000000"
		if code == wrong {
			wrong = "000001"
		}
		for i := 0; i < 5 && n < 10; i++ {
			if res, _ := post("/signin/verify", url.Values{"phone": {ph}, "code": {wrong}}); res.StatusCode != http.StatusBadRequest {
				t.Fatalf("wrong code %d: %d", n, res.StatusCode)
			}
			n++
		}
	}
	code := askCode()
	res, body := post("/signin/verify", url.Values{"phone": {ph}, "code": {code}})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" ||
		!strings.Contains(body, `data-code="`+string(booking.CodeRateLimited)+`"`) || !strings.Contains(body, "Too many wrong codes today") {
		t.Fatalf("right code after the day's wrong codes: %d %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
}
