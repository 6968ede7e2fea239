package web

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// fakeLinks keeps one link per patient in memory.
type fakeLinks struct{ links map[int64]string }

func (f *fakeLinks) Subscribe(_ context.Context, patientID int64, base string) (string, error) {
	f.links[patientID] = base + "/ical/feed/t" + strconv.Itoa(len(f.links)+1) + ".ics"
	return f.links[patientID], nil
}

func (f *fakeLinks) Revoke(_ context.Context, patientID int64) error {
	delete(f.links, patientID)
	return nil
}

func (f *fakeLinks) Subscribed(_ context.Context, patientID int64) (time.Time, bool, error) {
	_, ok := f.links[patientID]
	return time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), ok, nil
}

func TestCalendarPage(t *testing.T) {
	ctx := context.Background()
	links := &fakeLinks{links: map[int64]string{}}
	ws := newSite(t, withoutSamples(), withConfig(func(c *Config) { c.Calendar = links }))
	srv, st, signer := ws.srv, ws.store, ws.signer
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "A", Phone: "+33600000001"})
	if err != nil {
		t.Fatal(err)
	}

	c := srv.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = noRedirect
	// Signed out: the page sends to sign-in.
	res, err := c.Get(srv.URL + "/calendar")
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
		t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	tok, _ := signer.MintPage(auth.RolePatient, strconv.FormatInt(p.ID, 10), time.Hour)
	u, _ := url.Parse(srv.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: tok, Path: "/"}})

	post := func(path, page string) (*http.Response, string) {
		form := url.Values{"csrf": {between(page, `action="`+path+`" class="inline">
  <input type="hidden" name="csrf" value="`, `"`)}}
		res, err := c.PostForm(srv.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		return res, readAll(t, res)
	}
	res, _ = c.Get(srv.URL + "/calendar")
	page := readAll(t, res)
	if res.StatusCode != 200 || !strings.Contains(page, "You have no calendar link") {
		t.Fatalf("no link yet: %d %s", res.StatusCode, page)
	}
	res, page = post("/calendar", page)
	if res.StatusCode != 200 || !strings.Contains(page, srv.URL+"/ical/feed/t1.ics") || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("subscribe: %d %q %s", res.StatusCode, res.Header.Get("Cache-Control"), page)
	}
	res, _ = c.Get(srv.URL + "/calendar")
	page = readAll(t, res)
	if !strings.Contains(page, "You have a calendar link since") || strings.Contains(page, "/ical/feed/") {
		t.Fatalf("the link must be shown only once: %s", page)
	}
	res, _ = post("/calendar/revoke", page)
	if res.StatusCode != http.StatusSeeOther || len(links.links) != 0 {
		t.Fatalf("revoke: %d, links %v", res.StatusCode, links.links)
	}
	// Without a CSRF token nothing changes.
	res, err = c.PostForm(srv.URL+"/calendar", url.Values{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	if res.StatusCode != http.StatusForbidden || len(links.links) != 0 {
		t.Fatalf("no CSRF: %d, links %v", res.StatusCode, links.links)
	}
}
