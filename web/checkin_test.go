package web

import (
	"context"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// postAs posts form to path as role ("staff", "reception", "patient" for patients[0],
// "doctor" for the sample doctor) with a valid CSRF token, not following
// redirects; it answers the status and the body.
func (s *site) postAs(t *testing.T, role, lang, path string, form url.Values) (int, string) {
	t.Helper()
	const csrf = "0123456789abcdef0123456789abcdef"
	form.Set("csrf", s.pages.csrfToken(csrf, path))
	req, err := http.NewRequest("POST", s.url+path, strings.NewReader(form.Encode()))
	must(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrf})
	req.AddCookie(&http.Cookie{Name: langCookie, Value: lang})
	var tok string
	switch role {
	case "staff":
		tok, _ = s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	case "reception":
		tok, _ = s.signer.MintPage(auth.RoleReception, staffPrefix+"rita", time.Hour)
	case "patient":
		tok, _ = s.signer.MintPage(auth.RolePatient, strconv.FormatInt(s.patients[0].ID, 10), time.Hour)
	case "doctor":
		tok, _ = s.signer.MintPage(auth.RoleDoctor, strconv.FormatInt(s.doctor.ID, 10), time.Hour)
	}
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	must(t, err)
	return res.StatusCode, readAll(t, res)
}

// The check-in on the pages: the code and its QR image on the appointment
// page, the kiosk (typed code, every language, the refusals on the page
// itself), the day page's Check in button inside the window only, and
// ARRIVED shown.
func TestCheckInPages(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	s := &pagesSite{site: newSite(t, withClock(now))}
	ctx := context.Background()
	p := s.patients[0]
	booked := s.svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, s.slots[2].ID, "check-in-pages")
	must(t, booked.Err)
	a := booked.Appointment
	code := s.svc.CheckInCode(a.ID)
	if len(code) != 9 {
		t.Fatalf("code %q", code)
	}

	// The appointment page shows the code and the QR image.
	page := mainOf(s.getAs(t, "patient", "en", fmt.Sprintf("/appointments/%d", a.ID)))
	if !strings.Contains(page, code) || !strings.Contains(page, fmt.Sprintf(`src="/appointments/%d/check-in.png"`, a.ID)) {
		t.Fatalf("the appointment page lacks the check-in code or its QR:\n%s", page)
	}
	qr := func(role string, sub int64) *http.Response {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/appointments/%d/check-in.png", s.url, a.ID), nil)
		tok, _ := s.signer.MintPage(auth.RolePatient, strconv.FormatInt(sub, 10), time.Hour)
		if role != "" {
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		must(t, err)
		return res
	}
	res := qr("patient", p.ID)
	img, err := png.Decode(res.Body)
	res.Body.Close()
	if err != nil || res.Header.Get("Content-Type") != "image/png" || !strings.Contains(res.Header.Get("Cache-Control"), "private") ||
		img.Bounds().Dx() != qrPixels {
		t.Fatalf("QR image: %v %s %q", err, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
	}
	if res := qr("patient", s.patients[1].ID); res.StatusCode != http.StatusNotFound {
		t.Fatalf("another patient's QR image: %d", res.StatusCode)
	}
	if res := qr("", 0); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a visitor's QR image: %d", res.StatusCode)
	}

	// The day page: no Check in button before the window.
	day := fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	if strings.Contains(mainOf(s.getAs(t, "staff", "en", day)), "data-check-in") {
		t.Fatal("a Check in button a day before")
	}
	// The kiosk before the window (three hours before the start, whatever
	// the hour the test runs at): too early, on the kiosk page itself.
	clock.Store(a.StartAt.Add(-3 * time.Hour).UnixNano())
	if status, body := s.postAs(t, "staff", "fr", "/kiosk", url.Values{"code": {code}}); status != http.StatusConflict ||
		!strings.Contains(body, i18n.New("fr").T("Too early to check in")) || !strings.Contains(body, `id="kiosk-form"`) {
		t.Fatalf("kiosk, too early: %d\n%s", status, mainOf(body))
	}

	// Inside the window: a wrong code, then the right one, in every language.
	clock.Store(a.StartAt.Add(-20 * time.Minute).UnixNano())
	if status, body := s.postAs(t, "staff", "en", "/kiosk", url.Values{"code": {"AAAA-AAAA"}}); status != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "Code not recognised") {
		t.Fatalf("kiosk, a wrong code: %d\n%s", status, mainOf(body))
	}
	if status, _ := s.postAs(t, "patient", "en", "/kiosk", url.Values{"code": {code}}); status != http.StatusUnauthorized {
		t.Fatalf("the kiosk as a patient: %d", status)
	}
	if got, _ := s.store.GetAppointment(ctx, a.ID); got.Status != booking.StatusBooked {
		t.Fatalf("refused check-ins changed the appointment: %s", got.Status)
	}
	if !strings.Contains(mainOf(s.getAs(t, "staff", "en", day)), fmt.Sprintf(`action="/staff/appointments/%d/check-in"`, a.ID)) {
		t.Fatal("no Check in button inside the window")
	}
	when := a.StartAt.In(s.loc).Format("15:04")
	for _, l := range i18n.Languages {
		status, body := s.postAs(t, "staff", l.Tag, "/kiosk", url.Values{"code": {strings.ToLower(code)}})
		want := i18n.New(l.Tag).T("Checked in: queue number %d, %s at %s", a.QueueNumber, s.doctor.Name, when)
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%s: kiosk %d, want %q:\n%s", l.Tag, status, want, mainOf(body))
		}
	}
	got, _ := s.store.GetAppointment(ctx, a.ID)
	if got.Status != booking.StatusArrived {
		t.Fatalf("after the kiosk: %s", got.Status)
	}
	// The day page shows ARRIVED, without a Check in button; the
	// appointment page no longer offers the code.
	dayPage := mainOf(s.getAs(t, "staff", "fr", day))
	if !strings.Contains(dayPage, `badge ARRIVED`) || !strings.Contains(dayPage, i18n.New("fr").T("ARRIVED")) || strings.Contains(dayPage, "data-check-in") {
		t.Fatalf("the day page after the check-in:\n%s", dayPage)
	}
	if page := mainOf(s.getAs(t, "patient", "en", fmt.Sprintf("/appointments/%d", a.ID))); strings.Contains(page, code) {
		t.Fatalf("the code is still offered once arrived:\n%s", page)
	}

	// The day page's button, as the doctor on their own day page.
	other := s.svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(s.patients[1].ID)}), s.patients[1].ID, s.slots[3].ID, "check-in-day")
	must(t, other.Err)
	clock.Store(other.Appointment.StartAt.Add(-5 * time.Minute).UnixNano())
	path := fmt.Sprintf("/doctor/appointments/%d/check-in", other.Appointment.ID)
	if status, _ := s.postAs(t, "doctor", "en", path, url.Values{"next": {"/doctor/days/" + s.tomorrow.String()}}); status != http.StatusSeeOther {
		t.Fatalf("the doctor's Check in: %d", status)
	}
	if got, _ := s.store.GetAppointment(ctx, other.Appointment.ID); got.Status != booking.StatusArrived {
		t.Fatalf("after the day page's button: %s", got.Status)
	}
}
