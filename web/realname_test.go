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
	"github.com/slotd/slotd/problem"
)

// TestRealNamePages: staff turn real-name registration on from the policy
// form; the sign-up and People pages then ask for the national ID number in
// every language, refuse a missing or taken one with its problem and keep
// what was typed, and store it normalized.
func TestRealNamePages(t *testing.T) {
	s := newSite(t)
	base, err := url.Parse(s.url)
	must(t, err)
	staff := newVisitor(t, s.url)
	tok, _ := s.signer.MintPage(auth.RoleAdmin, staffPrefix+"admin", time.Hour)
	staff.c.Jar.SetCookies(base, []*http.Cookie{{Name: sessionCookie, Value: tok}})
	if st := staff.get("/staff/clinic"); st != 200 || !strings.Contains(staff.page, `name="requireNationalId"`) || strings.Contains(staff.page, `name="requireNationalId" value="yes" checked`) {
		t.Fatalf("the policy form (%d):\n%s", st, staff.page)
	}
	pol, err := s.svc.ClinicPolicy(context.Background())
	must(t, err)
	form := url.Values{"requireNationalId": {"yes"}}
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
	if pol, err = s.svc.ClinicPolicy(context.Background()); err != nil || !pol.RequireNationalID {
		t.Fatalf("the policy saved: %+v (%v)", pol, err)
	}

	const phone = "+33699881122"
	for i, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		v := newVisitor(t, s.url)
		v.c.Jar.SetCookies(base, []*http.Cookie{{Name: langCookie, Value: l.Tag}})
		v.get("/signup")
		v.post("/signup", url.Values{"address": {"+3369988000" + itoa(int64(i))}})
		if !strings.Contains(v.page, `name="nationalId"`) || !strings.Contains(v.page, pr.T("National ID number")) {
			t.Fatalf("%s: the details step does not ask for the national ID number:\n%s", l.Tag, v.page)
		}
	}
	v := newVisitor(t, s.url)
	v.get("/signup")
	v.post("/signup", url.Values{"address": {phone}})
	details := url.Values{"address": {phone}, "code": {s.codes.code(phone)}, "name": {"Wang Fang"}}
	res := v.post("/signup/create", details)
	if res.StatusCode != problem.Status(booking.CodeNationalIDRequired) || !strings.Contains(v.page, `data-code="national-id-required"`) ||
		!strings.Contains(v.page, `value="Wang Fang"`) {
		t.Fatalf("no national ID: %d\n%s", res.StatusCode, v.page)
	}
	details.Set("nationalId", "1101 0519 9001 01123x")
	if res := v.post("/signup/create", details); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-up: %d\n%s", res.StatusCode, v.page)
	}
	p, err := s.store.PatientByPhone(context.Background(), phone)
	must(t, err)
	if p.NationalID != "11010519900101123X" {
		t.Fatalf("the new patient: %+v", p)
	}

	// The People page asks too, and refuses the account's own number.
	if st := v.get("/people"); st != 200 || !strings.Contains(v.page, `id="nationalId"`) {
		t.Fatalf("the People page (%d):\n%s", st, v.page)
	}
	add := url.Values{"name": {"Lan"}, "birthDate": {"2017-06-01"}, "relation": {"child"}, "consent": {"yes"}, "nationalId": {"11010519900101123X"}}
	if res := v.post("/people", add); res.StatusCode != problem.Status(booking.CodeNationalIDTaken) || !strings.Contains(v.page, `data-code="national-id-taken"`) {
		t.Fatalf("a taken number: %d\n%s", res.StatusCode, v.page)
	}
	v.get("/people")
	add.Set("nationalId", "110105201706011234")
	if res := v.post("/people", add); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("adding: %d\n%s", res.StatusCode, v.page)
	}
	ps, err := s.svc.People(context.Background(), p.ID, booking.Page{})
	must(t, err)
	if len(ps) != 2 || ps[1].NationalID != "110105201706011234" {
		t.Fatalf("people %+v", ps)
	}
}
