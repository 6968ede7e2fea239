package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// testStaffSites: a staff account limited to a site (booking/staffsites.go)
// is kept by both stores, audited, and ends the account's tokens; the
// Service refuses a limited receptionist, as not found, every desk
// operation on another site's slot, appointment or doctor (and lets it work
// on its own), refuses a limited admin the clinic-wide changes, and many
// desk bookings released at once on both sites never pass the rule nor a
// capacity.
func testStaffSites(t *testing.T, h Harness) {
	s := h.New(t)
	acc, ok := s.(accountsStore)
	if !ok {
		t.Fatalf("the %T store keeps no staff accounts", s)
	}
	f := newFixture(t, s)
	siteA := f.dept.SiteID
	siteB, err := s.CreateSite(f.ctx, booking.Site{Name: "Site B", TimeZone: "Europe/Paris"})
	must(t, err)
	deptB, err := s.CreateDepartment(f.ctx, booking.Department{Name: "Pediatrics B", SiteID: siteB.ID})
	must(t, err)
	docB, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: "Dr. Bernard", DepartmentID: deptB.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	slotA, slotB := f.slot(5), f.slot(5, onDoctor(docB.ID))
	apptA, apptB := f.mustBook(slotA.ID, f.patient()), f.mustBook(slotB.ID, f.patient())

	// The store: the site of each kind of thing in one read.
	for _, c := range []struct {
		ref  booking.SiteRef
		want int64
	}{
		{booking.SiteRef{SlotID: slotB.ID}, siteB.ID}, {booking.SiteRef{AppointmentID: apptA.ID}, siteA},
		{booking.SiteRef{AppointmentID: apptB.ID}, siteB.ID}, {booking.SiteRef{DoctorID: f.doctor.ID}, siteA},
		{booking.SiteRef{DepartmentID: deptB.ID}, siteB.ID},
	} {
		got, err := s.SiteOf(f.ctx, c.ref)
		if err != nil || got != c.want {
			t.Fatalf("SiteOf(%+v) = %d, %v; want %d", c.ref, got, err, c.want)
		}
	}
	_, err = s.SiteOf(f.ctx, booking.SiteRef{SlotID: slotB.ID + 1000})
	wantCode(t, err, booking.CodeNotFound)

	// The accounts: limited, audited, their tokens ended; unknown users
	// and sites not found, and nothing changed then.
	root := booking.WithActor(context.Background(), booking.Actor{Role: booking.RoleAdmin, ID: "root"})
	for _, name := range []string{"rita", "ann", "root"} {
		must(t, acc.SetStaffPassword(root, name, []byte("$2a$10$x"), now))
	}
	must(t, acc.SetStaffReception(root, "rita"))
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Accounts: acc})
	before, _ := markOf(t, s, booking.Subject{Role: booking.RoleReception, ID: "staff:rita"})
	got, err := svc.SetStaffSites(root, "rita", []int64{siteB.ID, siteB.ID})
	must(t, err)
	if fmt.Sprint(got) != fmt.Sprint([]int64{siteB.ID}) {
		t.Fatalf("rita's sites: %v", got)
	}
	if m, ok := markOf(t, s, booking.Subject{Role: booking.RoleReception, ID: "staff:rita"}); !ok || !m.ValidAfter.After(before.ValidAfter) {
		t.Fatalf("rita's page mark %+v, want moved past %v", m, before.ValidAfter)
	}
	es := auditOf(t, s, booking.EntityStaffSites, 0)
	var was, is struct {
		Name  string
		Sites []int64
	}
	if len(es) != 1 || es[0].ActorID != "root" || json.Unmarshal([]byte(es[0].Before), &was) != nil || json.Unmarshal([]byte(es[0].After), &is) != nil ||
		was.Name != "rita" || len(was.Sites) != 0 || is.Name != "rita" || fmt.Sprint(is.Sites) != fmt.Sprint([]int64{siteB.ID}) {
		t.Fatalf("the audit of rita's sites: %+v", es)
	}
	wantCode(t, acc.SetStaffSites(root, "nobody", []int64{siteB.ID}, now), booking.CodeNotFound)
	wantCode(t, acc.SetStaffSites(root, "rita", []int64{siteA, siteB.ID + 1000}, now), booking.CodeNotFound)
	if sites, err := acc.StaffSites(f.ctx, "rita"); err != nil || fmt.Sprint(sites) != fmt.Sprint([]int64{siteB.ID}) {
		t.Fatalf("rita's sites after refused changes: %v, %v", sites, err)
	}
	_, err = acc.StaffSites(f.ctx, "nobody")
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.SetStaffSites(root, "rita", []int64{0})
	wantCode(t, err, booking.CodeInvalidRequest)
	_, err = svc.SetStaffSites(root, "ann", []int64{siteA})
	must(t, err)

	// rita at reception on site B: site A's ids are not found.
	rita := booking.Actor{Role: booking.RoleReception, ID: "staff:rita"}
	rctx := booking.WithActor(context.Background(), rita)
	p := f.patient()
	r := svc.BookFor(rctx, booking.Acting{PatientID: p.ID, Staff: true}, slotA.ID, "rita-a")
	wantCode(t, r.Err, booking.CodeNotFound)
	_, err = svc.Cancel(rctx, apptA.ID, 0)
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.Appointment(rctx, apptA.ID, 0)
	wantCode(t, err, booking.CodeNotFound)
	_, _, err = svc.CheckIn(rctx, rita, apptA.ID, "")
	wantCode(t, err, booking.CodeNotFound)
	_, _, err = svc.WalkIn(rctx, rita, booking.WalkInRequest{SlotID: slotA.ID, PatientID: p.ID, Reason: "fever", Key: "w"})
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.DayQueue(rctx, rita, f.doctor.ID)
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.Reschedule(rctx, service.RescheduleRequest{AppointmentID: apptB.ID, SlotID: slotA.ID, Key: "m"})
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.Transition(rctx, apptA.ID, booking.StatusNoShow)
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.ListingSite(rctx, rita, siteA)
	wantCode(t, err, booking.CodeNotFound)
	if site, err := svc.ListingSite(rctx, rita, 0); err != nil || site != siteB.ID {
		t.Fatalf("rita's listings narrowed to %d, %v; want site B %d", site, err, siteB.ID)
	}
	if a := f.getSlot(slotA.ID); a.BookedCount != 1 {
		t.Fatalf("refused desk work changed site A's slot: %+v", a)
	}
	// ... and site B's are hers.
	_, err = svc.Appointment(rctx, apptB.ID, 0)
	must(t, err)
	_, err = svc.DayQueue(rctx, rita, docB.ID)
	must(t, err)
	must(t, svc.BookFor(rctx, booking.Acting{PatientID: p.ID, Staff: true}, slotB.ID, "rita-b").Err)
	_, err = svc.Cancel(rctx, apptB.ID, 0)
	must(t, err)

	// ann, an admin limited to site A: no clinic-wide change, no queue of
	// site B; root, limited to none, runs the clinic.
	actx := booking.WithActor(context.Background(), booking.Actor{Role: booking.RoleAdmin, ID: "ann"})
	_, err = svc.SetStaffSites(actx, "rita", nil)
	wantCode(t, err, booking.CodeForbidden)
	pol, err := svc.ClinicPolicy(root)
	must(t, err)
	_, err = svc.SetClinicPolicy(actx, pol)
	wantCode(t, err, booking.CodeForbidden)
	_, err = svc.CreateSite(actx, booking.Site{Name: "Site C", TimeZone: "UTC"})
	wantCode(t, err, booking.CodeForbidden)
	_, err = svc.StepQueue(actx, booking.Actor{Role: booking.RoleAdmin, ID: "ann"}, apptB.ID, booking.QueueActionStart)
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.SetClinicPolicy(root, pol)
	must(t, err)

	// Many desk bookings at once on both sites: site A's all refused, site
	// B's slot filled to its capacity and no further.
	const n = 16
	race := f.slot(3, onDoctor(docB.ID))
	people := f.patients(2 * n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]booking.BookResult, 2*n)
	for i := range 2 * n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			slot := race.ID
			if i%2 == 0 {
				slot = slotA.ID
			}
			results[i] = svc.BookFor(rctx, booking.Acting{PatientID: people[i].ID, Staff: true}, slot, fmt.Sprint("race-", i))
		}()
	}
	close(start)
	wg.Wait()
	booked := 0
	for i, r := range results {
		switch {
		case i%2 == 0 && booking.ErrorCode(r.Err) != booking.CodeNotFound:
			t.Fatalf("a desk booking on site A: %v", r.Err)
		case i%2 == 1 && r.Err == nil:
			booked++
		}
	}
	if got := f.getSlot(race.ID); booked != 3 || got.BookedCount != 3 {
		t.Fatalf("site B's slot of 3: %d booked, %+v", booked, got)
	}
	if a := f.getSlot(slotA.ID); a.BookedCount != 1 {
		t.Fatalf("site A's slot after the race: %+v", a)
	}
}

// testStaffSiteLists: a limited staff caller's list of a patient's
// appointments is of its sites only, narrowed in the store's query so that
// each page is whole (a page of 2 over appointments interleaved on two
// sites gives 2 of its own, then the rest); a patient and an unlimited
// caller see all. A limited admin changes the catalog of its sites only:
// departments, doctors, slots, schedules, eligibility rules, services and
// suspensions of another site are not found (nothing changed), a
// department is created on its site, a clinic-wide closure and a service
// of no doctor are refused (403).
func testStaffSiteLists(t *testing.T, h Harness) {
	s := h.New(t)
	acc, ok := s.(accountsStore)
	if !ok {
		t.Fatalf("the %T store keeps no staff accounts", s)
	}
	f := newFixture(t, s)
	siteA := f.dept.SiteID
	siteB, err := s.CreateSite(f.ctx, booking.Site{Name: "Site B", TimeZone: "Europe/Paris"})
	must(t, err)
	deptB, err := s.CreateDepartment(f.ctx, booking.Department{Name: "Pediatrics B", SiteID: siteB.ID})
	must(t, err)
	docB, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: "Dr. Bernard", DepartmentID: deptB.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	p := f.patient()
	var onA, onB []int64
	for i := range 6 { // a day apart: a patient holds at most 3 a day
		day := startsAt(now.Add(time.Duration(24*(i+3)) * time.Hour))
		if i%2 == 0 {
			onA = append(onA, f.mustBook(f.slot(2, day).ID, p).ID)
		} else {
			onB = append(onB, f.mustBook(f.slot(2, day, onDoctor(docB.ID)).ID, p).ID)
		}
	}
	ids := func(as []booking.Appointment) []int64 {
		out := []int64{}
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	newest := func(xs []int64) []int64 { // ids descend
		out := slices.Clone(xs)
		slices.Reverse(out)
		return out
	}

	// The store: narrowed in the query, each page whole.
	as, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Sites: []int64{siteB.ID}, Page: booking.Page{Limit: 2}})
	must(t, err)
	if got := ids(as); fmt.Sprint(got) != fmt.Sprint(newest(onB)[:2]) {
		t.Fatalf("site B's first page: %v, want %v", got, newest(onB)[:2])
	}
	as, err = s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Sites: []int64{siteB.ID}, Page: booking.Page{After: as[1].ID, Limit: 2}})
	must(t, err)
	if got := ids(as); fmt.Sprint(got) != fmt.Sprint(newest(onB)[2:]) {
		t.Fatalf("site B's second page: %v, want %v", got, newest(onB)[2:])
	}
	as, err = s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Sites: []int64{siteA, siteB.ID}, Status: booking.StatusBooked})
	must(t, err)
	if len(as) != 6 {
		t.Fatalf("both sites: %v", ids(as))
	}
	as, err = s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Sites: []int64{siteB.ID + 1000}})
	must(t, err)
	if len(as) != 0 {
		t.Fatalf("a site of none: %v", ids(as))
	}

	root := booking.WithActor(context.Background(), booking.Actor{Role: booking.RoleAdmin, ID: "root"})
	for _, name := range []string{"rita", "ann", "root"} {
		must(t, acc.SetStaffPassword(root, name, []byte("$2a$10$x"), now))
	}
	must(t, acc.SetStaffReception(root, "rita"))
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Accounts: acc})
	_, err = svc.SetStaffSites(root, "rita", []int64{siteB.ID})
	must(t, err)
	_, err = svc.SetStaffSites(root, "ann", []int64{siteA})
	must(t, err)
	rctx := booking.WithActor(context.Background(), booking.Actor{Role: booking.RoleReception, ID: "staff:rita"})
	actx := booking.WithActor(context.Background(), booking.Actor{Role: booking.RoleAdmin, ID: "ann"})
	pctx := booking.WithActor(context.Background(), booking.Actor{Role: booking.RolePatient, ID: fmt.Sprint(p.ID)})

	// The Service: the desk's list of the patient is of its site, paged.
	first, err := svc.Appointments(rctx, p.ID, "", booking.Page{Limit: 2})
	must(t, err)
	rest, err := svc.Appointments(rctx, p.ID, "", booking.Page{After: first[len(first)-1].ID, Limit: 2})
	must(t, err)
	if got := append(ids(first), ids(rest)...); fmt.Sprint(got) != fmt.Sprint(newest(onB)) {
		t.Fatalf("rita's pages of the patient: %v, want site B's %v", got, newest(onB))
	}
	if as, err := svc.Appointments(actx, p.ID, booking.StatusBooked, booking.Page{}); err != nil || fmt.Sprint(ids(as)) != fmt.Sprint(newest(onA)) {
		t.Fatalf("ann's list of the patient: %v, %v; want site A's %v", ids(as), err, newest(onA))
	}
	for name, ctx := range map[string]context.Context{"root": root, "the patient": pctx} {
		if as, err := svc.Appointments(ctx, p.ID, "", booking.Page{}); err != nil || len(as) != 6 {
			t.Fatalf("%s's list of the patient: %v, %v", name, ids(as), err)
		}
	}

	// The catalog: ann's site A is hers to change, site B's is not found.
	sched := booking.Schedule{Weekdays: []time.Weekday{time.Friday}, StartTime: "08:00", EndTime: "09:00",
		SlotMinutes: 30, Capacity: 1, HorizonDays: 7}
	schedB := sched
	schedB.DoctorID = docB.ID
	schedB, err = s.CreateSchedule(f.ctx, schedB)
	must(t, err)
	slotB := f.slot(2, onDoctor(docB.ID))
	refused := []struct {
		name string
		err  func() error
	}{
		{"CreateDepartment on B", func() error {
			_, err := svc.CreateDepartment(actx, booking.Department{Name: "Annex", SiteID: siteB.ID})
			return err
		}},
		{"UpdateDepartment of B", func() error {
			_, err := svc.UpdateDepartment(actx, booking.Department{ID: deptB.ID, Name: "Renamed"})
			return err
		}},
		{"UpdateDepartment to B", func() error {
			_, err := svc.UpdateDepartment(actx, booking.Department{ID: f.dept.ID, Name: f.dept.Name, SiteID: siteB.ID})
			return err
		}},
		{"CreateDoctor in B", func() error {
			_, err := svc.CreateDoctor(actx, booking.Doctor{Name: "Dr. X", DepartmentID: deptB.ID, TimeZone: "UTC"})
			return err
		}},
		{"UpdateDoctor of B", func() error {
			active := false
			_, err := svc.UpdateDoctor(actx, docB.ID, booking.DoctorUpdate{Active: &active})
			return err
		}},
		{"UpdateDoctor to B", func() error {
			_, err := svc.UpdateDoctor(actx, f.doctor.ID, booking.DoctorUpdate{DepartmentID: &deptB.ID})
			return err
		}},
		{"CreateSlot of B", func() error {
			sl := f.slot(1)
			sl.ID, sl.DoctorID, sl.StartAt, sl.EndAt = 0, docB.ID, sl.StartAt.Add(time.Hour), sl.EndAt.Add(time.Hour)
			_, err := svc.CreateSlot(actx, sl)
			return err
		}},
		{"UpdateSlot of B", func() error {
			closed := booking.SlotClosed
			_, err := svc.UpdateSlot(actx, slotB.ID, booking.SlotUpdate{Status: &closed})
			return err
		}},
		{"CreateSchedule of B", func() error {
			sc := sched
			sc.DoctorID = docB.ID
			_, _, err := svc.CreateSchedule(actx, sc)
			return err
		}},
		{"UpdateSchedule of B", func() error {
			sc := schedB
			sc.Capacity = 2
			_, _, _, err := svc.UpdateSchedule(actx, sc)
			return err
		}},
		{"GenerateSlots of B", func() error {
			_, _, err := svc.GenerateSlots(actx, docB.ID, now, now.Add(48*time.Hour))
			return err
		}},
		{"SetEligibility of B", func() error {
			_, err := svc.SetEligibility(actx, booking.EligibilityRule{ScheduleID: schedB.ID, Cohorts: []string{"staff"}}, false)
			return err
		}},
		{"CreateInvitations of B", func() error {
			_, err := svc.CreateInvitations(actx, schedB.ID, 1)
			return err
		}},
		{"CreateService with B", func() error {
			_, err := svc.CreateService(actx, booking.Service{Name: "B visit", Minutes: 30, Level: booking.LevelOrdinary, DoctorIDs: []int64{f.doctor.ID, docB.ID}})
			return err
		}},
		{"Suspend B", func() error {
			_, err := svc.Suspend(actx, booking.Suspension{DoctorID: docB.ID, From: now.Add(time.Hour), To: now.Add(2 * time.Hour), Reason: "ill"})
			return err
		}},
	}
	for _, c := range refused {
		if err := c.err(); booking.ErrorCode(err) != booking.CodeNotFound {
			t.Fatalf("ann's %s: %v, want not found", c.name, err)
		}
	}
	if got := f.getSlot(slotB.ID); got.Status != booking.SlotOpen {
		t.Fatalf("a refused change closed site B's slot: %+v", got)
	}
	if d, err := s.GetDoctor(f.ctx, docB.ID); err != nil || !d.Active {
		t.Fatalf("a refused change of site B's doctor: %+v, %v", d, err)
	}
	_, err = svc.Suspend(actx, booking.Suspension{Scope: booking.ScopeClinic, From: now.Add(time.Hour), To: now.Add(2 * time.Hour), Reason: "strike"})
	wantCode(t, err, booking.CodeForbidden)
	_, err = svc.CreateService(actx, booking.Service{Name: "Everyone's", Minutes: 30, Level: booking.LevelOrdinary})
	wantCode(t, err, booking.CodeForbidden)

	// ... and site A's are hers.
	dept, err := svc.CreateDepartment(actx, booking.Department{Name: "Annex"})
	must(t, err)
	if dept.SiteID != siteA {
		t.Fatalf("ann's department on site %d, want her site %d", dept.SiteID, siteA)
	}
	_, err = svc.UpdateDepartment(actx, booking.Department{ID: dept.ID, Name: "Annex A"})
	must(t, err)
	doc, err := svc.CreateDoctor(actx, booking.Doctor{Name: "Dr. Alma", DepartmentID: dept.ID, TimeZone: "UTC"})
	must(t, err)
	sc := sched
	sc.DoctorID = doc.ID
	_, _, err = svc.CreateSchedule(actx, sc)
	must(t, err)
	v, err := svc.CreateService(actx, booking.Service{Name: "A visit", Minutes: 30, Level: booking.LevelOrdinary, DoctorIDs: []int64{doc.ID}})
	must(t, err)
	_, err = svc.UpdateService(actx, v.ID, booking.ServiceUpdate{DoctorIDs: &[]int64{docB.ID}})
	wantCode(t, err, booking.CodeNotFound)
	_, err = svc.UpdateService(actx, v.ID, booking.ServiceUpdate{DoctorIDs: &[]int64{doc.ID, f.doctor.ID}})
	must(t, err)
	// root, limited to none, changes site B's.
	_, err = svc.UpdateDepartment(root, booking.Department{ID: deptB.ID, Name: "Pediatrics Bis"})
	must(t, err)
}
