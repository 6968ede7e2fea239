package httpapi

import (
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A campaign through the API: an admin sets a schedule's rule, imports a
// cohort and generates invitations as CSV; a patient outside the cohort
// is 409 not-eligible, one without a code 409 invitation-required, one with
// it 201 (and the code once only); bad input is 400 and changes nothing.
// (Who may call the routes: TestAuthorizationMatrix.)
func TestCampaignEligibility(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sc, err := e.db.CreateSchedule(context.Background(), booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	sl := e.slot(f, 5, func(s *booking.Slot) { s.ScheduleID = sc.ID })
	rulePath := fmt.Sprintf("/api/admin/schedules/%d/eligibility", sc.ID)
	e.do(call{method: "GET", path: rulePath, token: e.admin}).expect(t, 404, booking.CodeNotFound)
	var rule booking.EligibilityRule
	e.do(call{method: "PUT", path: rulePath, token: e.admin, body: map[string]any{"cohorts": []string{"health workers"}, "invitationRequired": true}}).
		expect(t, 200).decode(t, &rule)
	if rule.ScheduleID != sc.ID || !rule.InvitationRequired || len(rule.Cohorts) != 1 {
		t.Fatalf("rule set: %+v", rule)
	}
	before := e.snapshot()
	for _, bad := range []map[string]any{{"minAge": 70, "maxAge": 60}, {"minAge": -1}, {"reservePlaces": 2}, {"cohorts": []string{" spaced"}}} {
		e.do(call{method: "PUT", path: rulePath, token: e.admin, body: bad, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "PUT", path: "/api/admin/schedules/999999/eligibility", token: e.admin, body: map[string]any{}}).expect(t, 404, booking.CodeNotFound)
	if e.snapshot() != before {
		t.Fatal("a refused rule changed the database")
	}

	nurse, other := e.patient(), e.patient()
	csvH := map[string]string{"Content-Type": "text/csv"}
	var rep struct {
		Rows, Added int
		Errors      []struct{ Line int }
	}
	body := fmt.Sprintf("patient_id,tag\n%d,health workers\n%d,health workers\nx,y\n%d,=bad\n", nurse.ID, nurse.ID, other.ID)
	e.do(call{method: "POST", path: "/api/admin/cohorts/import", token: e.admin, header: csvH, body: body}).expect(t, 200).decode(t, &rep)
	if rep.Rows != 4 || rep.Added != 1 || len(rep.Errors) != 2 || rep.Errors[0].Line != 4 {
		t.Fatalf("cohort import: %+v", rep)
	}
	e.do(call{method: "POST", path: "/api/admin/cohorts/import", token: e.admin, header: csvH, body: "patient,tag\n1,a\n"}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/cohorts/import", token: e.admin, header: csvH, body: "patient_id,tag\n999999,a\n"}).expect(t, 404, booking.CodeNotFound)

	ans := e.do(call{method: "POST", path: "/api/admin/invitations", token: e.admin, body: map[string]any{"count": 3, "scheduleId": sc.ID}}).expect(t, 201)
	rows, err := csv.NewReader(strings.NewReader(string(ans.body))).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][0] != "code" || len(rows[1][0]) != booking.InvitationCodeLen {
		t.Fatalf("invitations CSV: %q, %v", ans.body, err)
	}
	for _, bad := range []map[string]any{{"count": 0, "scheduleId": sc.ID}, {"count": 5001, "scheduleId": sc.ID}, {"count": 1}} {
		e.do(call{method: "POST", path: "/api/admin/invitations", token: e.admin, body: bad, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "POST", path: "/api/admin/invitations", token: e.admin, body: map[string]any{"count": 1, "scheduleId": 999999}}).expect(t, 404, booking.CodeNotFound)

	book := func(p booking.Patient, key string, code any) answer {
		b := map[string]any{"slotId": sl.ID}
		if code != nil {
			b["invitation"] = code
		}
		e.clock.add(10 * time.Second) // a fresh booking budget
		return e.do(call{method: "POST", path: "/api/appointments", token: e.patientToken(p.ID), header: map[string]string{"Idempotency-Key": key}, body: b})
	}
	book(other, "o1", rows[1][0]).expect(t, 409, booking.CodeNotEligible)
	book(nurse, "n1", nil).expect(t, 409, booking.CodeInvitationRequired)
	book(nurse, "n2", "NOPE-NOPE-NOPE").expect(t, 409, booking.CodeInvitationRequired)
	// A code typed in lower case, in groups, is the same code.
	typed := strings.ToLower(rows[1][0][:4] + "-" + rows[1][0][4:8] + " " + rows[1][0][8:])
	book(nurse, "n3", typed).expect(t, 201)
	e.do(call{method: "POST", path: "/api/admin/cohorts/import", token: e.admin, header: csvH, body: fmt.Sprintf("patient_id,tag\n%d,health workers\n", other.ID)}).expect(t, 200)
	book(other, "o2", rows[1][0]).expect(t, 409, booking.CodeInvitationRequired)
	e.do(call{method: "POST", path: "/api/appointments", token: e.patientToken(other.ID), header: map[string]string{"Idempotency-Key": "o3"},
		body: map[string]any{"slotId": sl.ID, "invitation": "<script>"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	book(other, "o4", rows[2][0]).expect(t, 201)

	e.do(call{method: "DELETE", path: rulePath, token: e.admin}).expect(t, 204)
	e.do(call{method: "GET", path: rulePath, token: e.admin}).expect(t, 404, booking.CodeNotFound)
	var audit struct{ Items []struct{ Action string } }
	e.do(call{method: "GET", path: "/api/admin/audit?entity=eligibility-rule", token: e.admin}).expect(t, 200).decode(t, &audit)
	if len(audit.Items) != 2 || audit.Items[0].Action != "delete" {
		t.Fatalf("the rule's audit: %+v", audit.Items)
	}
}

// Invitation codes where several places are booked at once: a group (one
// code per person, in patientIds' order) and a dose series (one code, for
// the dose whose schedule asks for it). Without codes 409
// invitation-required and nothing kept; with them 201; a malformed code
// 400.
func TestCampaignInvitationsGroupAndSeries(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sc, err := e.db.CreateSchedule(context.Background(), booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	sl := e.slot(f, 5, func(s *booking.Slot) { s.ScheduleID = sc.ID })
	e.do(call{method: "PUT", path: fmt.Sprintf("/api/admin/schedules/%d/eligibility", sc.ID), token: e.admin,
		body: map[string]any{"invitationRequired": true}}).expect(t, 200)
	ans := e.do(call{method: "POST", path: "/api/admin/invitations", token: e.admin, body: map[string]any{"count": 3, "scheduleId": sc.ID}}).expect(t, 201)
	rows, err := csv.NewReader(strings.NewReader(string(ans.body))).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("invitations CSV: %q, %v", ans.body, err)
	}

	a := e.patient()
	ta := e.patientToken(a.ID)
	var child struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/me/people", token: ta, body: map[string]any{"name": "Kid", "birthDate": "2018-05-01", "relation": "child", "consent": true}}).
		expect(t, 201).decode(t, &child)
	group := func(key string, codes ...string) answer {
		e.clock.add(10 * time.Second) // a fresh booking budget
		b := map[string]any{"slotId": sl.ID, "patientIds": []int64{a.ID, child.ID}}
		if codes != nil {
			b["invitations"] = codes
		}
		return e.do(call{method: "POST", path: "/api/group-bookings", token: ta, header: map[string]string{"Idempotency-Key": key}, body: b})
	}
	before := e.snapshot()
	group("g1").expect(t, 409, booking.CodeInvitationRequired)
	group("g2", rows[1][0]).expect(t, 409, booking.CodeInvitationRequired) // the child has none
	if e.snapshot() != before {
		t.Fatal("a group refused for its codes changed the database")
	}
	e.do(call{method: "POST", path: "/api/group-bookings", token: ta, header: map[string]string{"Idempotency-Key": "g3"},
		body: map[string]any{"slotId": sl.ID, "patientIds": []int64{a.ID, child.ID}, "invitations": []string{rows[1][0], "<b>"}}, invalid: true}).
		expect(t, 400, booking.CodeInvalidRequest)
	var got groupBooking
	group("g4", rows[1][0], strings.ToLower(rows[2][0])).expect(t, 201).decode(t, &got)
	if len(got.Appointments) != 2 {
		t.Fatalf("group booked %+v", got.Appointments)
	}

	// A series whose first dose is in the campaign's schedule.
	var ds booking.DoseSeries
	e.do(call{method: "POST", path: "/api/admin/dose-series", token: e.admin,
		body: map[string]any{"name": "Two doses", "windows": []map[string]int{{"minDays": 21, "maxDays": 28}}}}).expect(t, 201).decode(t, &ds)
	second := e.slot(f, 5, func(s *booking.Slot) {
		s.StartAt = sl.StartAt.Add(22 * 24 * time.Hour)
		s.EndAt = s.StartAt.Add(30 * time.Minute)
	})
	p := e.patient()
	tp := e.patientToken(p.ID)
	series := func(key string, code any) answer {
		e.clock.add(10 * time.Second)
		b := map[string]any{"seriesId": ds.ID, "slotIds": []int64{sl.ID, second.ID}}
		if code != nil {
			b["invitation"] = code
		}
		return e.do(call{method: "POST", path: "/api/series-bookings", token: tp, header: map[string]string{"Idempotency-Key": key}, body: b})
	}
	series("s1", nil).expect(t, 409, booking.CodeInvitationRequired)
	series("s2", rows[2][0]).expect(t, 409, booking.CodeInvitationRequired) // used by the group
	series("s3", rows[3][0]).expect(t, 201)
}

// A service's rule through the API: an admin sets, reads and removes it;
// a visit of the service by a patient outside its cohorts is 409
// not-eligible, by one inside 201; bad input is 400 and changes nothing,
// an unknown service 404.
func TestServiceEligibility(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ctx := context.Background()
	v, err := e.db.CreateService(ctx, booking.Service{Name: "Flu vaccination", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{f.doctor.ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	rulePath := fmt.Sprintf("/api/admin/services/%d/eligibility", v.ID)
	e.do(call{method: "GET", path: rulePath, token: e.admin}).expect(t, 404, booking.CodeNotFound)
	var rule booking.ServiceRule
	e.do(call{method: "PUT", path: rulePath, token: e.admin, body: map[string]any{"cohorts": []string{"nurses"}, "minAge": nil}}).
		expect(t, 200).decode(t, &rule)
	if rule.ServiceID != v.ID || len(rule.Cohorts) != 1 {
		t.Fatalf("rule set: %+v", rule)
	}
	e.do(call{method: "GET", path: rulePath, token: e.admin}).expect(t, 200).decode(t, &rule)
	if rule.ServiceID != v.ID || rule.Cohorts[0] != "nurses" {
		t.Fatalf("rule read: %+v", rule)
	}
	before := e.snapshot()
	for _, bad := range []map[string]any{{"minAge": 70, "maxAge": 60}, {"maxAge": 151}, {"invitationRequired": true},
		{"reservePlaces": 1}, {"cohorts": []string{" spaced"}}} {
		e.do(call{method: "PUT", path: rulePath, token: e.admin, body: bad, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	e.do(call{method: "PUT", path: "/api/admin/services/999999/eligibility", token: e.admin, body: map[string]any{}}).expect(t, 404, booking.CodeNotFound)
	if e.snapshot() != before {
		t.Fatal("a refused rule changed the database")
	}

	nurse, other := e.patient(), e.patient()
	if _, err := e.db.ImportCohorts(ctx, []booking.CohortRow{{PatientID: nurse.ID, Tag: "nurses"}}, t0); err != nil {
		t.Fatal(err)
	}
	sl := e.slot(f, 2)
	visit := func(p booking.Patient, key string) answer {
		e.clock.add(10 * time.Second) // a fresh booking budget
		return e.do(call{method: "POST", path: "/api/appointments", token: e.patientToken(p.ID),
			header: map[string]string{"Idempotency-Key": key}, body: map[string]any{"slotId": sl.ID, "service": v.ID}})
	}
	visit(other, "o1").expect(t, 409, booking.CodeNotEligible)
	visit(nurse, "n1").expect(t, 201)

	e.do(call{method: "DELETE", path: rulePath, token: e.admin}).expect(t, 204)
	e.do(call{method: "GET", path: rulePath, token: e.admin}).expect(t, 404, booking.CodeNotFound)
	visit(other, "o2").expect(t, 201)
	e.do(call{method: "DELETE", path: "/api/admin/services/999999/eligibility", token: e.admin}).expect(t, 404, booking.CodeNotFound)
}

// A slot listing for one person: a campaign with a cohort rule and two of
// its three places reserved for a sub-cohort until tomorrow. The anonymous
// listing is as it was (no availableToYou, publicly cacheable); a nurse
// sees the one place she can take, a priority nurse three, someone else 0
// not-eligible (the desk naming them too), and a nurse's listing after the
// reserve's time three; the places-reserved answer names its end.
func TestCampaignListingForPerson(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sc, err := e.db.CreateSchedule(context.Background(), booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 3, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	sl := e.slot(f, 3, func(s *booking.Slot) { s.ScheduleID = sc.ID })
	plain := e.slot(f, 2)
	until := e.clock.Now().Add(12 * time.Hour).UTC().Truncate(time.Second)
	e.do(call{method: "PUT", path: fmt.Sprintf("/api/admin/schedules/%d/eligibility", sc.ID), token: e.admin,
		body: map[string]any{"cohorts": []string{"nurses"}, "reservePlaces": 2, "reserveCohort": "priority", "reserveUntil": until}}).expect(t, 200)
	nurse, prio, other := e.patient(), e.patient(), e.patient()
	e.do(call{method: "POST", path: "/api/admin/cohorts/import", token: e.admin, header: map[string]string{"Content-Type": "text/csv"},
		body: fmt.Sprintf("patient_id,tag\n%d,nurses\n%d,nurses\n%d,priority\n", nurse.ID, prio.ID, prio.ID)}).expect(t, 200)

	loc, _ := time.LoadLocation(f.doctor.TimeZone)
	path := fmt.Sprintf("/api/doctors/%d/slots?date=%s", f.doctor.ID, sl.StartAt.In(loc).Format(time.DateOnly))
	type view struct {
		ID             int64
		AvailableToYou *int
		Reason         string
		ReservedUntil  *time.Time
	}
	list := func(token, query string) map[int64]view {
		t.Helper()
		var ans struct{ Slots []view }
		a := e.do(call{method: "GET", path: path + query, token: token}).expect(t, 200)
		a.decode(t, &ans)
		out := map[int64]view{}
		for _, v := range ans.Slots {
			out[v.ID] = v
		}
		return out
	}
	anon := list("", "")
	if anon[sl.ID].AvailableToYou != nil || anon[plain.ID].AvailableToYou != nil {
		t.Fatalf("the anonymous listing answers for a person: %+v", anon)
	}
	want := func(who string, got view, n int, reason string) {
		t.Helper()
		if got.AvailableToYou == nil || *got.AvailableToYou != n || got.Reason != reason {
			t.Errorf("%s: %+v, want %d %q", who, got, n, reason)
		}
	}
	want("a nurse", list(e.patientToken(nurse.ID), "")[sl.ID], 1, "")
	want("a priority nurse", list(e.patientToken(prio.ID), "")[sl.ID], 3, "")
	want("someone else", list(e.patientToken(other.ID), "")[sl.ID], 0, string(booking.CodeNotEligible))
	want("someone else, a slot without a rule", list(e.patientToken(other.ID), "")[plain.ID], 2, "")
	want("the desk for someone else", list(e.admin, fmt.Sprintf("&patientId=%d", other.ID))[sl.ID], 0, string(booking.CodeNotEligible))
	e.do(call{method: "GET", path: path + fmt.Sprintf("&patientId=%d", other.ID), token: e.patientToken(nurse.ID)}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: path + fmt.Sprintf("&patientId=%d", other.ID)}).expect(t, 401)
	e.do(call{method: "GET", path: path + "&patientId=x", token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// Two nurses book: the one place left is the reserve's.
	for k, p := range []booking.Patient{nurse, prio} {
		e.clock.add(10 * time.Second)
		e.do(call{method: "POST", path: "/api/appointments", token: e.patientToken(p.ID), header: map[string]string{"Idempotency-Key": fmt.Sprint("l", k)},
			body: map[string]any{"slotId": sl.ID}}).expect(t, 201)
	}
	e.clock.add(3 * time.Second) // past the listing cache
	got := list(e.patientToken(nurse.ID), "")[sl.ID]
	want("a nurse, the reserve's place left", got, 0, string(booking.CodePlacesReserved))
	if got.ReservedUntil == nil || !got.ReservedUntil.Equal(until) {
		t.Errorf("places-reserved names no end: %+v", got)
	}
	e.clock.add(13 * time.Hour)
	want("a nurse after the reserve", list(e.patientToken(nurse.ID), "")[sl.ID], 1, "")

	// First available: a place per slot, and for a person what they can take.
	svc, err := e.db.CreateService(t.Context(), booking.Service{Name: "Vaccine", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{f.doctor.ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	if a := e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d", svc.ID)}).expect(t, 200); strings.Contains(string(a.body), "availableToYou") {
		t.Fatalf("the anonymous first available answers for a person: %s", a.body)
	}
	var page struct {
		Items []struct {
			SlotID         int64
			AvailableToYou int
			Reason         string
		}
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&patientId=%d", svc.ID, other.ID), token: e.admin}).expect(t, 200).decode(t, &page)
	seen := 0
	for _, it := range page.Items {
		switch it.SlotID {
		case sl.ID:
			seen++
			if it.AvailableToYou != 0 || it.Reason != string(booking.CodeNotEligible) {
				t.Errorf("first available, the campaign's slot for someone else: %+v", it)
			}
		case plain.ID:
			seen++
			if it.AvailableToYou != 1 || it.Reason != "" {
				t.Errorf("first available, a slot without a rule: %+v", it)
			}
		}
	}
	if seen != 2 {
		t.Errorf("first available shows %d of the two slots: %+v", seen, page.Items)
	}
}
