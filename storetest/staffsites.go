package storetest

import (
	"context"
	"encoding/json"
	"fmt"
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
