package storetest

import (
	"fmt"
	"testing"

	"github.com/slotd/slotd/booking"
)

// testSites: the first site holds everything the migration found and is
// filled from the settings once; sites are created, changed, audited and
// listed; departments, doctors and open slots are listed by site.
func testSites(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sites, err := s.ListSites(f.ctx, booking.Page{Limit: 10})
	must(t, err)
	if len(sites) != 1 || sites[0].Name != "slotd clinic" || sites[0].Lat != nil {
		t.Fatalf("sites after the migration: %+v", sites)
	}
	first := sites[0]
	if f.dept.SiteID != first.ID {
		t.Fatalf("a department created without a site is in site %d, want the first, %d", f.dept.SiteID, first.ID)
	}

	settings := booking.Site{Name: "Cabinet Lumière", Address: "1 rue de la Paix, Paris", Phone: "+33 1 23 45 67 89", TimeZone: "Europe/Paris"}
	filled, err := s.FillFirstSite(f.ctx, settings)
	must(t, err)
	again, err := s.FillFirstSite(f.ctx, booking.Site{Name: "Other", TimeZone: "UTC"})
	must(t, err)
	got, err := s.GetSite(f.ctx, first.ID)
	must(t, err)
	if !filled || again || got.Name != settings.Name || got.Address != settings.Address || got.Phone != settings.Phone {
		t.Fatalf("filled %v then %v: %+v", filled, again, got)
	}
	_, err = s.FillFirstSite(f.ctx, booking.Site{Name: "No zone"})
	wantCode(t, err, booking.CodeInvalidRequest)

	lat, lon := 10.7769, 106.7009
	saigon, err := s.CreateSite(f.ctx, booking.Site{Name: "Saigon", TimeZone: "Asia/Ho_Chi_Minh", Lat: &lat, Lon: &lon})
	must(t, err)
	if saigon.ID == 0 || *saigon.Lat != lat {
		t.Fatalf("created %+v", saigon)
	}
	_, err = s.CreateSite(f.ctx, booking.Site{Name: "Saigon", TimeZone: "UTC"})
	wantCode(t, err, booking.CodeConflict)
	_, err = s.CreateSite(f.ctx, booking.Site{Name: "Half", TimeZone: "UTC", Lat: &lat})
	wantCode(t, err, booking.CodeInvalidRequest)
	_, err = s.CreateSite(f.ctx, booking.Site{Name: "Nowhere", TimeZone: "Mars/Olympus"})
	wantCode(t, err, booking.CodeInvalidRequest)

	name := "Saigon District 1"
	changed, err := s.UpdateSite(f.ctx, saigon.ID, booking.SiteUpdate{Name: &name, Position: &booking.Position{Clear: true}})
	must(t, err)
	if changed.Name != name || changed.Lat != nil || changed.Lon != nil || changed.TimeZone != "Asia/Ho_Chi_Minh" {
		t.Fatalf("updated %+v", changed)
	}
	_, err = s.UpdateSite(f.ctx, 999999, booking.SiteUpdate{Name: &name})
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.UpdateSite(f.ctx, first.ID, booking.SiteUpdate{Name: &name})
	wantCode(t, err, booking.CodeConflict)
	if es := auditOf(t, s, booking.EntitySite, saigon.ID); len(es) != 2 || es[0].Action != "update" {
		t.Fatalf("audit of the site: %+v", es)
	}
	if page, err := s.ListSites(f.ctx, booking.Page{After: first.ID, Limit: 10}); err != nil || len(page) != 1 || page[0].ID != saigon.ID {
		t.Fatalf("second page of sites: %+v, %v", page, err)
	}

	// Opening hours: kept sorted, bad weeks refused and nothing changed.
	week := booking.OpeningHours{{Day: "tue", Opens: "14:00", Closes: "24:00"}, {Day: "MON", Opens: "08:00", Closes: "12:00"},
		{Day: "tue", Opens: "08:00", Closes: "12:00"}}
	changed, err = s.UpdateSite(f.ctx, saigon.ID, booking.SiteUpdate{OpeningHours: &week})
	must(t, err)
	want := fmt.Sprint(booking.OpeningHours{{Day: "mon", Opens: "08:00", Closes: "12:00"},
		{Day: "tue", Opens: "08:00", Closes: "12:00"}, {Day: "tue", Opens: "14:00", Closes: "24:00"}})
	if got, err := s.GetSite(f.ctx, saigon.ID); err != nil || fmt.Sprint(got.OpeningHours) != want || fmt.Sprint(changed.OpeningHours) != want {
		t.Fatalf("opening hours: wrote %v, read %+v, %v", changed.OpeningHours, got.OpeningHours, err)
	}
	for _, bad := range []booking.OpeningHours{
		{{Day: "mon", Opens: "08:00", Closes: "12:00"}, {Day: "mon", Opens: "11:00", Closes: "13:00"}},
		{{Day: "lun", Opens: "08:00", Closes: "12:00"}},
		{{Day: "mon", Opens: "12:00", Closes: "08:00"}},
		{{Day: "mon", Opens: "8:00", Closes: "12:00"}},
		{{Day: "mon", Opens: "00:00", Closes: "01:00"}, {Day: "mon", Opens: "02:00", Closes: "03:00"},
			{Day: "mon", Opens: "04:00", Closes: "05:00"}, {Day: "mon", Opens: "06:00", Closes: "07:00"}},
	} {
		_, err = s.UpdateSite(f.ctx, saigon.ID, booking.SiteUpdate{OpeningHours: &bad})
		wantCode(t, err, booking.CodeInvalidRequest)
	}
	if got, _ := s.GetSite(f.ctx, saigon.ID); fmt.Sprint(got.OpeningHours) != want {
		t.Fatalf("a refused week changed the hours: %+v", got.OpeningHours)
	}
	if got, _ := s.GetSite(f.ctx, first.ID); got.OpeningHours == nil || len(got.OpeningHours) != 0 {
		t.Fatalf("a site without hours: %#v", got.OpeningHours)
	}

	// Nearest first: Hanoi (1,140 km from Saigon) after Phnom Penh (about
	// 205), the first site, without a position, left out.
	lat, lon = 10.7769, 106.7009
	_, err = s.UpdateSite(f.ctx, saigon.ID, booking.SiteUpdate{Position: &booking.Position{Lat: lat, Lon: lon}})
	must(t, err)
	at := func(name, zone string, lat, lon float64) booking.Site {
		t.Helper()
		v, err := s.CreateSite(f.ctx, booking.Site{Name: name, TimeZone: zone, Lat: &lat, Lon: &lon})
		must(t, err)
		return v
	}
	hanoi := at("Hà Nội", "Asia/Ho_Chi_Minh", 21.0245, 105.8571)
	phnomPenh := at("Phnom Penh", "Asia/Phnom_Penh", 11.5564, 104.9282)
	near, err := s.ListSitesNear(f.ctx, booking.SitesNear{Lat: lat, Lon: lon, Limit: 10})
	must(t, err)
	if len(near) != 3 || near[0].ID != saigon.ID || near[1].ID != phnomPenh.ID || near[2].ID != hanoi.ID ||
		near[0].DistanceKm > 0.001 || near[1].DistanceKm < 200 || near[1].DistanceKm > 220 ||
		near[2].DistanceKm < 1130 || near[2].DistanceKm > 1160 || fmt.Sprint(near[0].OpeningHours) != want {
		t.Fatalf("sites near Saigon: %+v", near)
	}
	if page, err := s.ListSitesNear(f.ctx, booking.SitesNear{Lat: lat, Lon: lon, Skip: 1, Limit: 1}); err != nil ||
		len(page) != 1 || page[0].ID != phnomPenh.ID {
		t.Fatalf("second page near Saigon: %+v, %v", page, err)
	}
	// Across the antimeridian: Suva (178°E) is Apia's (171°W) nearest.
	fiji := at("Suva", "Pacific/Fiji", -18.1416, 178.4419)
	if far, err := s.ListSitesNear(f.ctx, booking.SitesNear{Lat: -13.8333, Lon: -171.7500, Limit: 1}); err != nil ||
		len(far) != 1 || far[0].ID != fiji.ID {
		t.Fatalf("nearest to Apia: %+v, %v", far, err)
	}
	_, err = s.ListSitesNear(f.ctx, booking.SitesNear{Lat: 91, Lon: 0})
	wantCode(t, err, booking.CodeInvalidRequest)

	// Listings by site.
	_, err = s.CreateDepartment(f.ctx, booking.Department{Name: "Nowhere", SiteID: 999999})
	wantCode(t, err, booking.CodeNotFound)
	dept, err := s.CreateDepartment(f.ctx, booking.Department{Name: "Nhi khoa", SiteID: saigon.ID})
	must(t, err)
	doc, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: "BS. Trần", DepartmentID: dept.ID, TimeZone: "Asia/Ho_Chi_Minh"})
	must(t, err)
	depts, err := s.ListDepartmentsBy(f.ctx, booking.DepartmentFilter{SiteID: saigon.ID}, booking.Page{Limit: 10})
	must(t, err)
	if len(depts) != 1 || depts[0].ID != dept.ID || depts[0].SiteID != saigon.ID {
		t.Fatalf("departments of the site: %+v", depts)
	}
	docIDs := func(fl booking.DoctorFilter) string {
		t.Helper()
		ds, err := s.ListDoctorsBy(f.ctx, fl, booking.Page{Limit: 10})
		must(t, err)
		ids := []int64{}
		for _, d := range ds {
			ids = append(ids, d.ID)
		}
		return fmt.Sprint(ids)
	}
	if got := docIDs(booking.DoctorFilter{SiteID: saigon.ID}); got != fmt.Sprint([]int64{doc.ID}) {
		t.Fatalf("doctors of the site: %s", got)
	}
	if got := docIDs(booking.DoctorFilter{SiteID: first.ID}); got != fmt.Sprint([]int64{f.doctor.ID, f.doctor2.ID}) {
		t.Fatalf("doctors of the first site: %s", got)
	}
	there := f.slot(1, onDoctor(doc.ID))
	here := f.slot(1, startsAt(there.StartAt))
	q := booking.OpenSlots{DoctorIDs: []int64{f.doctor.ID, doc.ID}, From: there.StartAt, To: there.EndAt, Limit: 10}
	all, err := s.ListOpenSlots(f.ctx, q)
	must(t, err)
	q.SiteID = saigon.ID
	mine, err := s.ListOpenSlots(f.ctx, q)
	must(t, err)
	if len(all) != 2 || len(mine) != 1 || mine[0].ID != there.ID || here.ID == there.ID {
		t.Fatalf("open slots: all %d, of the site %+v", len(all), mine)
	}
}
