package fhir

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestSitesAndServices: one Location per site with its position, phone
// and opening hours; a doctor's Schedule at the site of the department;
// slots carrying their doctor's services and their site's phone; one
// HealthcareService per service, searchable by site; a visit's
// Appointment coded with its service; the bulk files site by site.
func TestSitesAndServices(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	lat, lon := 10.7769, 106.7009
	saigon, err := f.store.CreateSite(ctx, booking.Site{Name: "Sài Gòn", TimeZone: "Asia/Ho_Chi_Minh", Phone: "+84 28 0000 0000",
		Lat: &lat, Lon: &lon, OpeningHours: booking.OpeningHours{{Day: "mon", Opens: "07:30", Closes: "12:00"},
			{Day: "mon", Opens: "13:00", Closes: "24:00"}, {Day: "sun", Opens: "00:00", Closes: "24:00"}}})
	must(t, err)
	dept, err := f.store.CreateDepartment(ctx, booking.Department{Name: "Nhi khoa", SiteID: saigon.ID})
	must(t, err)
	doc, err := f.store.CreateDoctor(ctx, booking.Doctor{Name: "BS. Trần", DepartmentID: dept.ID, TimeZone: "Asia/Ho_Chi_Minh"})
	must(t, err)
	// 06:30 on 3 December in Saigon is 23:30Z on the 2nd: the booking
	// link names the site's day.
	there := f.slot(doc.ID, time.Date(2026, 12, 3, 6, 30, 0, 0, mustZone(t, "Asia/Ho_Chi_Minh")), 1, start.Add(-time.Hour), booking.SlotOpen)
	visit, err := f.store.CreateService(ctx, booking.Service{Name: "Khám tổng quát", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{f.doc.ID, doc.ID}, Active: true})
	must(t, err)

	l := decode[Location](t, f.get("/fhir/Location/"+siteID(saigon.ID), ""))
	if l.Position == nil || l.Position.Latitude != lat || l.Telecom[0].Value != "+84 28 0000 0000" || len(l.HoursOfOperation) != 3 ||
		l.HoursOfOperation[0].OpeningTime != "07:30:00" || l.HoursOfOperation[1].ClosingTime != "23:59:59" ||
		!l.HoursOfOperation[2].AllDay || l.HoursOfOperation[2].DaysOfWeek[0] != "sun" {
		t.Fatalf("the site's Location %+v", l)
	}
	locs := entries[Location](t, f.get("/fhir/Location", ""))
	if len(locs) != 3 || locs[0].ID != siteID(f.dept.SiteID) || locs[1].ID != siteID(saigon.ID) || locs[2].ID != id(f.room.ID) {
		t.Fatalf("locations %+v", locs)
	}
	for _, bad := range []string{"site-999999", "site-x", "site-0"} {
		expectOutcome(t, f.get("/fhir/Location/"+bad, ""), 404, booking.CodeNotFound)
	}

	if s := decode[Schedule](t, f.get("/fhir/Schedule/"+id(doc.ID), "")); s.Actor[1].Reference != "Location/"+siteID(saigon.ID) {
		t.Fatalf("the doctor's schedule %+v", s)
	}
	if got := entries[Schedule](t, f.get("/fhir/Schedule?actor=Location/"+siteID(saigon.ID), "")); len(got) != 1 || got[0].ID != id(doc.ID) {
		t.Fatalf("schedules of the site %+v", got)
	}
	sl := decode[Slot](t, f.get("/fhir/Slot/"+id(there.ID), ""))
	if len(sl.ServiceType) != 1 || sl.ServiceType[0].Coding[0].System != ServiceSystem || sl.ServiceType[0].Coding[0].Code != id(visit.ID) ||
		ext(sl.Extension, ExtBookingPhone).ValueString != "+84 28 0000 0000" ||
		ext(sl.Extension, ExtDeepLink).ValueURL != "https://clinic.test/doctors/"+id(doc.ID)+"/days/2026-12-03" {
		t.Fatalf("the slot at the site %+v", sl)
	}
	if sl := decode[Slot](t, f.get("/fhir/Slot/"+id(f.open.ID), "")); ext(sl.Extension, ExtBookingPhone).ValueString != "+33 1 23 45 67 89" {
		t.Fatalf("a slot of the first site %+v", sl)
	}

	hs := decode[HealthcareService](t, f.get("/fhir/HealthcareService/"+id(visit.ID), ""))
	if hs.Name != visit.Name || !hs.Active || len(hs.Location) != 2 || hs.Location[1].Reference != "Location/"+siteID(saigon.ID) ||
		*ext(hs.Extension, ExtDuration).ValueInteger != 30 || hs.Type[0].Coding[0].Code != id(visit.ID) {
		t.Fatalf("the service %+v", hs)
	}
	if got := entries[HealthcareService](t, f.get("/fhir/HealthcareService?location=Location/"+siteID(saigon.ID), "")); len(got) != 1 || got[0].ID != id(visit.ID) {
		t.Fatalf("services of the site %+v", got)
	}
	other, err := f.store.CreateSite(ctx, booking.Site{Name: "Empty", TimeZone: "UTC"})
	must(t, err)
	if got := entries[HealthcareService](t, f.get("/fhir/HealthcareService?location=Location/"+siteID(other.ID), "")); len(got) != 0 {
		t.Fatalf("services of a site without doctors %+v", got)
	}
	expectOutcome(t, f.get("/fhir/HealthcareService/999999", ""), 404, booking.CodeNotFound)
	expectOutcome(t, f.get("/fhir/HealthcareService?type=x", ""), 400, booking.CodeInvalidRequest)

	r := f.svc.BookVisitFor(ctx, booking.Acting{PatientID: f.p1.ID}, booking.Visit{SlotID: f.open.ID, ServiceID: visit.ID}, "visit-1")
	must(t, r.Err)
	a := decode[Appointment](t, f.get("/fhir/Appointment/"+id(r.Appointment.ID), f.patientToken(f.p1)))
	if len(a.ServiceType) != 1 || a.ServiceType[0].Coding[0].Code != id(visit.ID) {
		t.Fatalf("the visit's appointment %+v", a)
	}

	m := f.manifest("")
	blocs := ndjson[Location](t, f.file(m, "Location"))
	scheds := ndjson[Schedule](t, f.file(m, "Schedule"))
	if len(blocs) != 3 || blocs[1].ID != siteID(saigon.ID) || len(scheds) != 3 || scheds[2].ID != id(doc.ID) ||
		ext(scheds[2].Extension, ExtBookingPhone).ValueString != "+84 28 0000 0000" {
		t.Fatalf("bulk: locations %+v, schedules %+v", blocs, scheds)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	z, err := time.LoadLocation(name)
	must(t, err)
	return z
}
