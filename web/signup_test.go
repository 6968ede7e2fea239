package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// visitorForms is a visitor's browser: a cookie jar, no redirect
// followed, and the forms of the last page it read.
type visitorForms struct {
	t    *testing.T
	c    *http.Client
	base string
	page string
}

func newVisitor(t *testing.T, base string) *visitorForms {
	jar, _ := cookiejar.New(nil)
	return &visitorForms{t: t, c: &http.Client{Jar: jar, CheckRedirect: noRedirect}, base: base}
}

func (v *visitorForms) get(path string) int {
	v.t.Helper()
	res, err := v.c.Get(v.base + path)
	must(v.t, err)
	v.page = readAll(v.t, res)
	return res.StatusCode
}

// post submits the form of the last page whose action is path, with
// fields (its csrf and next filled from the page).
func (v *visitorForms) post(path string, fields url.Values) *http.Response {
	v.t.Helper()
	form := between(v.page, `action="`+path+`"`, `</form>`)
	fields.Set("csrf", between(form, `name="csrf" value="`, `"`))
	if strings.Contains(form, `name="next"`) {
		fields.Set("next", htmlUnescape(between(form, `name="next" value="`, `"`)))
	}
	res, err := v.c.PostForm(v.base+path, fields)
	must(v.t, err)
	v.page = readAll(v.t, res)
	return res
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'").Replace(s)
}

// A visitor who came from a slot signs up and returns to the slot's review
// line, signed in; every refused step says what is wrong and keeps what
// was typed.
func TestSignupPageLeadsBackToTheSlot(t *testing.T) {
	s := newSite(t)
	free := s.slots[1]
	dayPath := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	back := dayPath + "?slot=" + fmt.Sprint(free.ID)
	v := newVisitor(t, s.url)
	if st := v.get("/signin?next=" + url.QueryEscape(back)); st != 200 || !strings.Contains(v.page, `data-signup`) || !strings.Contains(v.page, `href="/signup?next=`) {
		t.Fatalf("the sign-in page (%d) has no sign-up link carrying next:\n%s", st, v.page)
	}
	link := htmlUnescape(between(v.page, `<a href="`+"/signup", `"`))
	if st := v.get("/signup" + link); st != 200 || !strings.Contains(v.page, `name="next" value="`+template.HTMLEscapeString(back)+`"`) {
		t.Fatalf("the sign-up page (%d) does not carry the way back (%q):\n%s", st, link, v.page)
	}

	expect := func(res *http.Response, code booking.Code) {
		t.Helper()
		if res.StatusCode != problem.Status(code) || !strings.Contains(v.page, `data-code="`+string(code)+`"`) {
			t.Fatalf("%d, want %d with data-code %q:\n%s", res.StatusCode, problem.Status(code), code, v.page)
		}
	}
	expect(v.post("/signup", url.Values{"address": {"not a phone"}}), booking.CodeInvalidRequest)
	if res := v.post("/signup", url.Values{"address": {"06 99 88 77 66"}}); res.StatusCode != 200 || !strings.Contains(v.page, `action="/signup/create"`) {
		t.Fatalf("the address step: %d\n%s", res.StatusCode, v.page)
	}
	code := s.codes.code("+33699887766")
	if code == "" {
		t.Fatal("no code was sent to the new phone")
	}
	details := url.Values{"address": {"06 99 88 77 66"}, "code": {code}, "name": {"Inès Nouvelle"}, "birthDate": {"2999-01-01"}, "sex": {"female"}}
	expect(v.post("/signup/create", details), booking.CodeInvalidRequest)
	if !strings.Contains(v.page, `value="Inès Nouvelle"`) || !strings.Contains(v.page, `action="/signup/create"`) {
		t.Fatalf("a refused birth date loses the form:\n%s", v.page)
	}
	details.Set("birthDate", "1979-11-30")
	details.Set("code", wrongOf(code))
	expect(v.post("/signup/create", details), booking.CodeInvalidRequest)
	details.Set("code", code)
	res := v.post("/signup/create", details)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != back {
		t.Fatalf("sign-up: %d to %q, want back to %q\n%s", res.StatusCode, res.Header.Get("Location"), back, v.page)
	}
	if st := v.get(back); st != 200 || !strings.Contains(v.page, `data-review="`+fmt.Sprint(free.ID)+`"`) {
		t.Fatalf("back at the slot (%d): no review line:\n%s", st, v.page)
	}
	p, err := s.store.PatientByPhone(context.Background(), "+33699887766")
	must(t, err)
	if p.Name != "Inès Nouvelle" || p.BirthDate != "1979-11-30" || p.Sex != "female" {
		t.Fatalf("the new patient: %+v", p)
	}

	// A registered phone's sign-up signs into its account.
	other := newVisitor(t, s.url)
	other.get("/signup")
	other.post("/signup", url.Values{"address": {s.patients[0].Phone}})
	res = other.post("/signup/create", url.Values{"address": {s.patients[0].Phone}, "code": {s.codes.code(s.patients[0].Phone)}, "name": {"Someone"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/appointments?welcome=1" {
		t.Fatalf("a registered phone's sign-up: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if got, _ := s.store.GetPatient(context.Background(), s.patients[0].ID); got.Name != s.patients[0].Name {
		t.Fatalf("the registered patient's name became %q", got.Name)
	}
}

func wrongOf(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

// Turned off, the page says how to register instead, and its form is
// refused with signup-disabled.
func TestSignupPageWhenOff(t *testing.T) {
	s := newSite(t, withoutSamples(), withConfig(func(c *Config) {
		c.ClinicPhone = "+33 1 23 45 67 89"
		c.Signin = c.Service.NewSignin(service.SigninOptions{Accounts: c.Accounts, Notifier: c.Notifier,
			PhoneKey: []byte("p"), CodeKey: []byte("c"), SignupOff: true})
	}))
	v := newVisitor(t, s.url)
	if st := v.get("/signup"); st != http.StatusForbidden || !strings.Contains(v.page, "&#43;33 1 23 45 67 89") ||
		!strings.Contains(v.page, "12 rue de la Paix, Paris") || strings.Contains(v.page, `action="/signup"`) {
		t.Fatalf("the sign-up page when off (%d):\n%s", st, v.page)
	}
	// A form posted from a page of before the switch.
	u, _ := url.Parse(s.url)
	var csrf string
	for _, c := range v.c.Jar.Cookies(u) {
		if c.Name == csrfCookie {
			csrf = s.pages.csrfToken(c.Value, "/signup")
		}
	}
	res, err := v.c.PostForm(s.url+"/signup", url.Values{"csrf": {csrf}, "address": {"+33611111111"}})
	must(t, err)
	page := readAll(t, res)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(page, `data-code="signup-disabled"`) {
		t.Fatalf("the address step when off: %d\n%s", res.StatusCode, page)
	}
}
