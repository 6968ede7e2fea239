package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// TestOpeningSummaryPage: an opening's public summary is no page until
// staff tick the policy's box; then anyone, signed in or not, reads it in
// every language, the waiting room's page links to it, and it shows the
// counts and refusals but nobody's name.
func TestOpeningSummaryPage(t *testing.T) {
	s := &pagesSite{site: newSite(t)}
	ctx := context.Background()
	sc, err := s.store.CreateSchedule(ctx, booking.Schedule{DoctorID: s.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	opens := time.Now().Add(time.Hour).Truncate(time.Second)
	start := opens.Add(72 * time.Hour).Truncate(time.Hour)
	_, err = s.store.CreateSlot(ctx, booking.Slot{DoctorID: s.doctor.ID, ScheduleID: sc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 7, OpensAt: opens, Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	o, err := s.svc.AnnounceOpening(ctx, sc.ID, opens)
	must(t, err)
	path := "/openings/" + itoa(o.ID)
	if status, _ := s.statusAs(t, "", "en", path+"/summary"); status != http.StatusNotFound {
		t.Fatalf("the summary before the clinic publishes it: %d, want 404", status)
	}
	if page := mainOf(s.getAs(t, "", "en", path)); strings.Contains(page, "data-summary") {
		t.Fatalf("the waiting room links to an unpublished summary:\n%s", page)
	}

	base, err := url.Parse(s.url)
	must(t, err)
	staff := newVisitor(t, s.url)
	tok, _ := s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	staff.c.Jar.SetCookies(base, []*http.Cookie{{Name: sessionCookie, Value: tok}})
	if st := staff.get("/staff/clinic"); st != 200 || !strings.Contains(staff.page, `name="publicOpeningSummary"`) ||
		strings.Contains(staff.page, `name="publicOpeningSummary" value="yes" checked`) {
		t.Fatalf("the policy form (%d):\n%s", st, staff.page)
	}
	pol, err := s.svc.ClinicPolicy(ctx)
	must(t, err)
	form := url.Values{"publicOpeningSummary": {"yes"}}
	for name, v := range map[string]int{"maxActive": pol.MaxActive, "maxPerDay": pol.MaxPerDay, "cancelCutoffHours": pol.CancelCutoffHours,
		"noShowLimit": pol.NoShowLimit, "noShowBlockDays": pol.NoShowBlockDays, "refundFullHours": pol.RefundFullHours,
		"refundPartialPercent": pol.RefundPartialPercent, "refundPartialHours": pol.RefundPartialHours,
		"checkInBeforeMinutes": pol.CheckInBeforeMinutes, "checkInAfterMinutes": pol.CheckInAfterMinutes,
		"noShowGraceMinutes": pol.NoShowGraceMinutes, "queueSkipCalls": pol.QueueSkipCalls, "queueNotifyAhead": pol.QueueNotifyAhead,
		"maxPeople": pol.MaxPeople, "walkInsPerSlot": pol.WalkInsPerSlot} {
		form.Set(name, itoa(int64(v)))
	}
	if res := staff.post("/staff/clinic/policy", form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving the policy: %d\n%s", res.StatusCode, staff.page)
	}
	if pol, err = s.svc.ClinicPolicy(ctx); err != nil || !pol.PublicOpeningSummary || pol.RequireNationalID {
		t.Fatalf("the policy saved: %+v (%v)", pol, err)
	}

	if page := mainOf(s.getAs(t, "", "en", path)); !strings.Contains(page, `href="`+path+`/summary"`) {
		t.Fatalf("the waiting room does not link to its summary:\n%s", page)
	}
	for _, lang := range i18n.Languages {
		pr := i18n.New(lang.Tag)
		for _, role := range []string{"", "patient"} {
			page := mainOf(s.getAs(t, role, lang.Tag, path+"/summary"))
			if !strings.Contains(page, pr.T("How the opening went")) || !strings.Contains(page, "data-places>7<") ||
				!strings.Contains(page, "data-sold>0<") || !strings.Contains(page, pr.T("Refusals by reason")) {
				t.Fatalf("%s as %q:\n%s", lang.Tag, role, page)
			}
			if strings.Contains(page, s.patients[0].Name) {
				t.Fatalf("%s: the summary names a patient:\n%s", lang.Tag, page)
			}
		}
	}
	if status, _ := s.statusAs(t, "", "en", "/openings/999/summary"); status != http.StatusNotFound {
		t.Fatalf("no such opening: %d", status)
	}
}
