package web

import (
	"context"
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

// TestOpeningPage: the waiting room's page offers a place before the
// opening, shows it (drawn at the opening) in every language, refreshes
// itself, and once admitted leads to the booking, which the admission's
// cookie lets through where a booking without it is refused.
func TestOpeningPage(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	s := &pagesSite{site: newSite(t, withClock(now))}
	ctx := context.Background()
	sc, err := s.store.CreateSchedule(ctx, booking.Schedule{DoctorID: s.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	opens := now().Add(time.Hour).Truncate(time.Second)
	start := now().Add(72 * time.Hour).Truncate(time.Hour)
	sl, err := s.store.CreateSlot(ctx, booking.Slot{DoctorID: s.doctor.ID, ScheduleID: sc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 5, OpensAt: opens, Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	o, err := s.svc.AnnounceOpening(ctx, sc.ID, opens)
	must(t, err)
	path := "/openings/" + itoa(o.ID)
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "patient", lang.Tag, path))
		if !strings.Contains(page, `action="`+path+`/queue"`) || !strings.Contains(page, o.Commitment) ||
			!strings.Contains(page, `data-live="`+path+`?partial=1"`) {
			t.Fatalf("%s, before taking a place:\n%s", lang.Tag, page)
		}
	}
	if page := mainOf(s.getAs(t, "", "en", path)); !strings.Contains(page, "/signin?next=%2fopenings%2f"+itoa(o.ID)) {
		t.Fatalf("signed out:\n%s", page)
	}
	for range 2 { // a second press keeps the place
		if status, body := s.postAs(t, "patient", "en", path+"/queue", url.Values{}); status != http.StatusSeeOther {
			t.Fatalf("taking a place: %d %s", status, body)
		}
	}
	for _, lang := range i18n.Languages {
		part := s.getAs(t, "patient", lang.Tag, path+"?partial=1")
		if !strings.Contains(part, "data-prequeue") || strings.Contains(part, "<main") {
			t.Fatalf("%s, in the pre-queue:\n%s", lang.Tag, part)
		}
	}
	book := func(key, admission string) (int, string) {
		form := url.Values{"slot": {itoa(sl.ID)}, "key": {key}}
		const csrf = "0123456789abcdef0123456789abcdef"
		form.Set("csrf", s.pages.csrfToken(csrf, "/book"))
		req, err := http.NewRequest("POST", s.url+"/book", strings.NewReader(form.Encode()))
		must(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: csrfCookie, Value: csrf})
		tok, _ := s.signer.MintPage(auth.RolePatient, strconv.FormatInt(s.patients[0].ID, 10), time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
		if admission != "" {
			req.AddCookie(&http.Cookie{Name: admissionCookie, Value: admission})
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.Do(req)
		must(t, err)
		return res.StatusCode, readAll(t, res)
	}
	clock.Store(opens.Add(time.Second).UnixNano())
	if status, _ := book("no-admission", ""); status != http.StatusConflict {
		t.Fatalf("a booking without admission: %d", status)
	}
	must(t, s.svc.AdmitDue(ctx))
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "patient", lang.Tag, path))
		if !strings.Contains(page, "data-admitted") || !strings.Contains(page, `href="/doctors/`+itoa(s.doctor.ID)+`"`) {
			t.Fatalf("%s, admitted:\n%s", lang.Tag, page)
		}
	}
	pl, err := s.svc.OpeningPlace(ctx, o.ID, s.patients[0].ID)
	must(t, err)
	if status, body := book("admitted", pl.Token); status != http.StatusSeeOther {
		t.Fatalf("a booking with the admission's cookie: %d\n%.600s", status, body)
	}
	// The admission ends its life after it was given, not after the last
	// look: the place then says so.
	clock.Store(opens.Add(time.Second + booking.DefaultAdmissionTTL).UnixNano())
	for _, lang := range i18n.Languages {
		part := s.getAs(t, "patient", lang.Tag, path+"?partial=1")
		if !strings.Contains(part, "data-expired") || strings.Contains(part, "data-admitted") {
			t.Fatalf("%s, the admission expired:\n%s", lang.Tag, part)
		}
	}
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "staff", lang.Tag, "/staff"+path))
		if !strings.Contains(page, "data-places>5<") || !strings.Contains(page, "data-sold>1<") || !strings.Contains(page, "data-people>1<") ||
			!strings.Contains(page, `data-outcome="not-admitted"`) || !strings.Contains(page, `data-outcome="created"`) {
			t.Fatalf("%s, the staff's report:\n%s", lang.Tag, page)
		}
	}
}
