package web

// Plain HTTP tests of the patient pages that need no browser: the demo's
// simulated payment with a payment secret, and the booking budget the
// pages share with the JSON API.

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

const paySecret = "provider-secret"

// plainSite is a site in demo mode with a payment secret, on a store
// with a doctor with two slots tomorrow (one with a fee) and a patient
// signed in to the API and the pages.
type plainSite struct {
	*site
	doctor   booking.Doctor
	day      schedule.Date
	free     booking.Slot
	paid     booking.Slot
	patient  booking.Patient
	apiToken string
	session  string
}

// plain fills a site started withoutSamples with plainSite's data.
func plain(t *testing.T, site *site) *plainSite {
	t.Helper()
	ctx := context.Background()
	st, signer := site.store, site.signer
	s := &plainSite{site: site}
	dep, err := st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	s.doctor, err = st.CreateDoctor(ctx, booking.Doctor{Name: "Dr Martin", DepartmentID: dep.ID, TimeZone: "UTC"})
	must(t, err)
	s.day = schedule.DateOf(time.Now(), time.UTC).AddDays(1)
	start, _ := schedule.DayBounds(s.day, time.UTC)
	for i, fee := range []int64{0, 2500} {
		at := start.Add(9*time.Hour + time.Duration(i)*time.Hour)
		_, err := st.InsertSlots(ctx, []booking.Slot{{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute),
			Capacity: 5, OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, FeeCents: fee, HoldSeconds: 900}})
		must(t, err)
	}
	sls, err := st.ListSlots(ctx, s.doctor.ID, start, start.Add(24*time.Hour))
	must(t, err)
	s.free, s.paid = sls[0], sls[1]
	s.patient, err = st.CreatePatient(ctx, booking.Patient{Name: "Anh Nguyen", Phone: "+33 6 12 34 56 01"})
	must(t, err)
	s.apiToken, err = signer.Mint(auth.RolePatient, fmt.Sprint(s.patient.ID), time.Hour)
	must(t, err)
	s.session, err = signer.MintPage(auth.RolePatient, fmt.Sprint(s.patient.ID), time.Hour)
	must(t, err)
	return s
}

// client is a browser without JavaScript signed in as the site's patient.
func (s *plainSite) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(s.url)
	jar.SetCookies(u, []*http.Cookie{{Name: "slotd_session", Value: s.session, Path: "/"}})
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string) string {
	t.Helper()
	res, err := c.Get(u)
	must(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", u, res.StatusCode)
	}
	return string(b)
}

// formValue returns the value of the hidden input name of the form posting
// to action.
func formValue(t *testing.T, page, action, name string) string {
	t.Helper()
	i := strings.Index(page, `action="`+action+`"`)
	if i < 0 {
		t.Fatalf("no form for %s", action)
	}
	rest := page[i:]
	j := strings.Index(rest, `name="`+name+`" value="`)
	if j < 0 {
		t.Fatalf("no %s in the form for %s", name, action)
	}
	rest = rest[j+len(`name="`+name+`" value="`):]
	return rest[:strings.Index(rest, `"`)]
}

func post(t *testing.T, c *http.Client, u string, form url.Values) *http.Response {
	t.Helper()
	res, err := c.PostForm(u, form)
	must(t, err)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// With a payment secret set, the demo's simulated provider pays a held
// appointment: its callback is signed as a provider signs and verified as
// the API verifies (it was signed in bare hex and refused, so the demo pay
// page always failed).
func TestDemoPaymentWithSecret(t *testing.T) {
	s := plain(t, newSite(t, withoutSamples(), withDemo(), withPaymentSecret(paySecret)))
	res := s.svc.Book(context.Background(), s.patient.ID, s.paid.ID, "pay-1")
	must(t, res.Err)
	a := res.Appointment
	if a.Status != booking.StatusHeld {
		t.Fatalf("a slot with a fee books HELD, got %s", a.Status)
	}
	c := s.client(t)
	action := fmt.Sprintf("/appointments/%d/pay", a.ID)
	page := get(t, c, s.url+action)
	form := url.Values{"csrf": {formValue(t, page, action, "csrf")}, "trade": {formValue(t, page, action, "trade")}}
	r := post(t, c, s.url+action, form)
	if r.StatusCode != http.StatusSeeOther || !strings.HasSuffix(r.Header.Get("Location"), "?paid=1") {
		t.Fatalf("pay: %d %s, want 303 to ?paid=1", r.StatusCode, r.Header.Get("Location"))
	}
	got, err := s.store.GetAppointment(context.Background(), a.ID)
	must(t, err)
	if got.Status != booking.StatusBooked {
		t.Fatalf("after paying: %s, want BOOKED", got.Status)
	}
	// Paying again with the same form is the same payment.
	if r := post(t, c, s.url+action, form); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("paying twice with one form: %d", r.StatusCode)
	}
}

// A patient has one booking budget, whether the attempts come from the API
// or from the pages.
func TestBookingBudgetIsSharedByAPIAndWeb(t *testing.T) {
	s := plain(t, newSite(t, withoutSamples(), withDemo(), withPaymentSecret(paySecret),
		withService(func(o *service.Options) { o.BookingRate, o.BookingWindow = 3, time.Hour })))
	apiBook := func(key string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.url+"/api/appointments", strings.NewReader(fmt.Sprintf(`{"slotId":%d}`, s.free.ID)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.apiToken)
		req.Header.Set("Idempotency-Key", key)
		res, err := http.DefaultClient.Do(req)
		must(t, err)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	c := s.client(t)
	dayPage := get(t, c, fmt.Sprintf("%s/doctors/%d/days/%s", s.url, s.doctor.ID, s.day))
	webBook := func(key string) *http.Response {
		t.Helper()
		return post(t, c, s.url+"/book", url.Values{"csrf": {formValue(t, dayPage, "/book", "csrf")},
			"slot": {fmt.Sprint(s.free.ID)}, "key": {key}})
	}
	if r := apiBook("a1"); r.StatusCode != http.StatusCreated {
		t.Fatalf("first API attempt: %d", r.StatusCode)
	}
	if r := webBook("a1"); r.StatusCode != http.StatusSeeOther || !strings.HasSuffix(r.Header.Get("Location"), "?replayed=1") {
		t.Fatalf("the same booking retried from the pages: %d %s, want a replay", r.StatusCode, r.Header.Get("Location"))
	}
	// The third attempt of three: an answer, not a refusal of the limiter.
	if r := apiBook("a1"); r.StatusCode != http.StatusOK || r.Header.Get("RateLimit") != `"booking";r=0;t=3600` {
		t.Fatalf("third attempt: %d RateLimit %q", r.StatusCode, r.Header.Get("RateLimit"))
	}
	// Both front ends now refuse: the budget is spent.
	if r := webBook("w2"); r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("web attempt beyond the shared budget: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := apiBook("a3"); r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Fatalf("API attempt beyond the shared budget: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
}

// A visitor's time is a link to sign in that comes back to that slot,
// where the signed-in patient sees one review line, in every language,
// and books from it.
func TestVisitorTimeLeadsToItsBooking(t *testing.T) {
	s := plain(t, newSite(t, withoutSamples()))
	dayPath := fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.day)
	visitor := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := get(t, visitor, s.url+dayPath)
	back := dayPath + "?slot=" + fmt.Sprint(s.free.ID)
	if !strings.Contains(page, `<a class="time" href="/signin?next=`+url.QueryEscape(back)+`"`) {
		t.Fatalf("a visitor's open time is no sign-in link back to its slot:\n%s", page)
	}
	signin := get(t, visitor, s.url+"/signin?next="+url.QueryEscape(back))
	if !strings.Contains(signin, `name="next" value="`+template.HTMLEscapeString(back)+`"`) {
		t.Fatalf("the sign-in form does not carry the way back to the slot:\n%s", signin)
	}

	c := s.client(t)
	if plainDay := get(t, c, s.url+dayPath); strings.Contains(plainDay, `id="review"`) {
		t.Fatalf("a review without ?slot=:\n%s", plainDay)
	}
	for _, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		req, _ := http.NewRequest("GET", s.url+back, nil)
		req.AddCookie(&http.Cookie{Name: langCookie, Value: l.Tag})
		res, err := c.Do(req)
		must(t, err)
		review := readAll(t, res)
		line := template.HTMLEscapeString(pr.T("Book %s on %s with %s?", fmtClock(pr, s.free.StartAt, time.UTC), dayTitle(pr, s.day), s.doctor.Name))
		if !strings.Contains(review, `data-review="`+fmt.Sprint(s.free.ID)+`"`) || !strings.Contains(review, line) {
			t.Fatalf("%s: no review line %q:\n%s", l.Tag, line, review)
		}
	}
	review := get(t, c, s.url+back)
	form := between(review, `id="review"`, "</form>")
	res := post(t, c, s.url+"/book", url.Values{"csrf": {formValue(t, form, "/book", "csrf")},
		"slot": {formValue(t, form, "/book", "slot")}, "key": {formValue(t, form, "/book", "key")}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/appointments/") {
		t.Fatalf("booking from the review: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if sl, err := s.store.GetSlot(context.Background(), s.free.ID); err != nil || sl.BookedCount != 1 {
		t.Fatalf("the reviewed slot after booking: %+v %v", sl, err)
	}
}
