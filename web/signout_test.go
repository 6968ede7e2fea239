package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// TestSignoutEndsTheCookie: after signing out, the cookie's value copied
// before is no session any more (today's behaviour only cleared it from
// the browser), for a patient and for staff; a disabled staff user cannot
// sign in and its session ends.
func TestSignoutEndsTheCookie(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "A", Phone: "+33600000001"})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := accounts.HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SetStaffPassword(ctx, "carol", hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	signer, _ := auth.NewSigner([]byte("unit-secret-unit-secret-unit-secret"))
	// The staff user is disabled through the store, as slotd staff-disable
	// does from another process: read the marks on every request.
	svc := service.NewService(st, service.Options{MarkRefresh: time.Nanosecond})
	srv := httptest.NewServer(New(Config{Service: svc, Store: st, Accounts: st, Signer: signer,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)

	client := func(cookie string) *http.Client {
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Transport: srv.Client().Transport, CheckRedirect: noRedirect, Jar: jar}
		if cookie != "" {
			c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: cookie, Path: "/"}})
		}
		return c
	}
	get := func(c *http.Client, path string) (int, string, string) {
		t.Helper()
		res, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, res)
		return res.StatusCode, res.Header.Get("Location"), body
	}
	post := func(c *http.Client, path, page string, form url.Values) (int, string) {
		t.Helper()
		form.Set("csrf", between(between(page, `action="`+path+`"`, `</form>`), `name="csrf" value="`, `"`))
		res, err := c.PostForm(srv.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, readAll(t, res)
	}

	for _, who := range []struct {
		name, page string
		role       auth.Role
		sub        string
	}{
		{"patient", "/appointments", auth.RolePatient, strconv.FormatInt(p.ID, 10)},
		{"staff", "/staff", auth.RoleAdmin, staffPrefix + "carol"},
	} {
		t.Run(who.name, func(t *testing.T) {
			tok, err := signer.MintPage(who.role, who.sub, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			c := client(tok)
			status, _, page := get(c, who.page)
			if status != http.StatusOK {
				t.Fatalf("signed in: %d", status)
			}
			// The same cookie verified twice: the second is the signer's cache hit.
			if status, _, _ := get(client(tok), who.page); status != http.StatusOK {
				t.Fatalf("the copied cookie before sign-out: %d", status)
			}
			if status, body := post(c, "/signout", page, url.Values{}); status != http.StatusSeeOther {
				t.Fatalf("sign-out: %d %s", status, between(body, "<main", "</main>"))
			}
			status, loc, _ := get(client(tok), who.page)
			if status != http.StatusSeeOther || !strings.Contains(loc, "signin") {
				t.Fatalf("the copied cookie after sign-out: %d %q, want a redirect to sign in", status, loc)
			}
			// A new sign-in works at once.
			fresh, err := signer.MintPage(who.role, who.sub, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if status, _, _ := get(client(fresh), who.page); status != http.StatusOK {
				t.Fatalf("a session after the sign-out: %d", status)
			}
		})
	}

	t.Run("disabled staff", func(t *testing.T) {
		tok, _ := signer.MintPage(auth.RoleAdmin, staffPrefix+"carol", time.Hour)
		if status, _, _ := get(client(tok), "/staff"); status != http.StatusOK {
			t.Fatalf("before: %d", status)
		}
		if err := st.SetStaffDisabled(ctx, "carol", true, time.Now()); err != nil {
			t.Fatal(err)
		}
		if status, _, _ := get(client(tok), "/staff"); status != http.StatusSeeOther {
			t.Fatalf("a disabled user's session: %d, want a redirect to sign in", status)
		}
		c := client("")
		_, _, page := get(c, "/staff/signin")
		status, body := post(c, "/staff/signin", page, url.Values{"name": {"carol"}, "password": {"correct horse"}})
		if want := problem.Status(booking.CodeForbidden); status != want || !strings.Contains(body, "This account is disabled") {
			t.Fatalf("a disabled user's sign-in: %d, want %d saying so", status, want)
		}
		for _, ck := range c.Jar.Cookies(u) {
			if ck.Name == sessionCookie {
				t.Fatal("a disabled user got a session")
			}
		}
		if err := st.SetStaffDisabled(ctx, "carol", false, time.Now()); err != nil {
			t.Fatal(err)
		}
		_, _, page = get(c, "/staff/signin")
		if status, _ := post(c, "/staff/signin", page, url.Values{"name": {"carol"}, "password": {"correct horse"}}); status != http.StatusSeeOther {
			t.Fatalf("an enabled user's sign-in: %d", status)
		}
	})
}
