package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

func TestEveryCodeHasAHumanMessage(t *testing.T) {
	for _, c := range booking.Codes() {
		p, ok := problems[c]
		if !ok || p.Title == "" || p.Message == "" {
			t.Errorf("code %s has no complete human message", c)
		}
	}
	if len(problems) != len(booking.Codes()) {
		t.Errorf("the table has %d entries for %d codes", len(problems), len(booking.Codes()))
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"/appointments": "/appointments", "//evil.example": "/", "https://evil.example": "/", "/\\evil": "/", "": "/",
		"/a\x00b": "/", "/a\x1bb": "/", "/a\x7fb": "/", "/a\u0085b": "/", "/a\\b": "/", "/a\xffb": "/",
		"/caf\u00e9?q=1": "/caf\u00e9?q=1",
	} {
		if got := safeNext(in, "/"); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func TestPostWithoutCSRFTokenIsRefused(t *testing.T) {
	srv := newSite(t, withoutSamples()).srv
	c := srv.Client()
	c.CheckRedirect = noRedirect
	for _, path := range []string{"/signin", "/book", "/staff/signin", "/signout"} {
		res, err := c.PostForm(srv.URL+path, url.Values{"phone": {"+33600000000"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s without a token: %d, want 403", path, res.StatusCode)
		}
	}
}

func TestCookiesAndCSRFRoundTrip(t *testing.T) {
	s := newSite(t, withoutSamples())
	srv, st := s.srv, s.store
	ctx := context.Background()
	if _, err := st.CreatePatient(ctx, booking.Patient{Name: "A", Phone: "+33600000001"}); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	c.CheckRedirect = noRedirect
	res, err := c.Get(srv.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, res)
	var csrf *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == csrfCookie {
			csrf = ck
		}
	}
	if csrf == nil || !csrf.HttpOnly || csrf.SameSite != http.SameSiteLaxMode {
		t.Fatalf("CSRF cookie %+v: want HttpOnly, SameSite=Lax", csrf)
	}
	if h := res.Header.Get("Content-Security-Policy"); !strings.Contains(h, "default-src 'self'") {
		t.Errorf("CSP %q", h)
	}
	token := between(body, `name="csrf" value="`, `"`)
	form := url.Values{"csrf": {token}, "phone": {"+33 6 00 00 00 01"}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(csrf)
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page := readAll(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, `id="code"`) {
		t.Fatalf("phone step: %d", res.StatusCode)
	}
	// The token of one form does not open another.
	form = url.Values{"csrf": {token}, "phone": {"+33600000001"}, "code": {"123456"}}
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/signin/verify", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(csrf)
	res, _ = c.Do(req)
	readAll(t, res)
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("a token for /signin used on /signin/verify: %d, want 403", res.StatusCode)
	}
	// A cross-site Origin is refused even with a good token.
	form = url.Values{"csrf": {token}, "phone": {"+33600000001"}}
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/signin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.AddCookie(csrf)
	res, _ = c.Do(req)
	readAll(t, res)
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site origin: %d, want 403", res.StatusCode)
	}
}

func TestRecorder(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := NewRecorder(func() time.Time { return now })
	r.Booked("created", false, 0)
	r.Booked("created", false, 0)
	r.Booked("replayed", false, 0)
	r.Booked(string(booking.CodeSlotFull), true, 0)
	r.Changed(service.Change{SlotID: 7})
	r.Changed(service.Change{SlotID: 7})
	r.Changed(service.Change{SlotID: 9})
	st := r.Snapshot()
	if st.PerSecond[len(st.PerSecond)-1] != 2 || st.Created != 2 || st.Replayed != 1 || st.Rejections["slot-full"] != 1 {
		t.Fatalf("snapshot %+v", st)
	}
	if len(st.HotSlots) != 2 || st.HotSlots[0] != 7 {
		t.Fatalf("hot slots %v", st.HotSlots)
	}
	now = now.Add(5 * time.Minute)
	if st := r.Snapshot(); st.PerSecond[len(st.PerSecond)-1] != 0 || len(st.HotSlots) != 0 {
		t.Fatalf("after five quiet minutes: %+v", st)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	j := strings.Index(s, b)
	if j < 0 {
		return ""
	}
	return s[:j]
}
