package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestSites: staff create and change a site, anyone lists them, and
// departments and doctors are listed by site; bad input is a 400 that
// changes nothing.
func TestSites(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	var sites struct{ Items []booking.Site }
	e.do(call{method: "GET", path: "/api/sites"}).expect(t, 200).decode(t, &sites)
	if len(sites.Items) != 1 {
		t.Fatalf("sites after the migration %+v", sites.Items)
	}
	first := sites.Items[0]

	var hanoi booking.Site
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Hà Nội", "address": "1 Tràng Tiền", "lat": 21.0245, "lon": 105.8571, "timezone": "Asia/Ho_Chi_Minh",
		"phone": "+84 24 0000 0000"}}).expect(t, 201).decode(t, &hanoi)
	if hanoi.ID == 0 || hanoi.Lat == nil || *hanoi.Lat != 21.0245 {
		t.Fatalf("created %+v", hanoi)
	}
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Hà Nội", "timezone": "UTC"}}).expect(t, 409, booking.CodeConflict)
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Nowhere", "timezone": "Mars/Olympus"}}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Half", "timezone": "UTC", "lat": 10}}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Pole", "timezone": "UTC", "lat": 91, "lon": 0}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "No zone"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	var changed booking.Site
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/sites/%d", hanoi.ID), token: e.admin, body: map[string]any{
		"phone": "+84 24 1111 1111"}}).expect(t, 200).decode(t, &changed)
	if changed.Phone != "+84 24 1111 1111" || changed.Name != "Hà Nội" || changed.Lat == nil {
		t.Fatalf("changed %+v", changed)
	}
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/sites/%d", hanoi.ID), token: e.admin, body: map[string]any{},
		invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: "/api/admin/sites/999999", token: e.admin, body: map[string]any{
		"phone": "1"}}).expect(t, 404, booking.CodeNotFound)

	// Opening hours are set, sorted, and refused when they overlap.
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/sites/%d", hanoi.ID), token: e.admin, body: map[string]any{
		"openingHours": []map[string]string{{"day": "sat", "opens": "08:00", "closes": "12:00"},
			{"day": "mon", "opens": "07:30", "closes": "19:00"}}}}).expect(t, 200).decode(t, &changed)
	if fmt.Sprint(changed.OpeningHours) != "[{mon 07:30 19:00} {sat 08:00 12:00}]" {
		t.Fatalf("opening hours %+v", changed.OpeningHours)
	}
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/sites/%d", hanoi.ID), token: e.admin, body: map[string]any{
		"openingHours": []map[string]string{{"day": "mon", "opens": "08:00", "closes": "12:00"},
			{"day": "mon", "opens": "11:00", "closes": "13:00"}}}}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/sites/%d", hanoi.ID), token: e.admin, body: map[string]any{
		"openingHours": []map[string]string{{"day": "mon", "opens": "25:00", "closes": "26:00"}}},
		invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// Nearest first from Hải Phòng: Hà Nội, then Saigon; the first site,
	// without a position, is not listed.
	var saigon booking.Site
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Sài Gòn", "lat": 10.7769, "lon": 106.7009, "timezone": "Asia/Ho_Chi_Minh"}}).expect(t, 201).decode(t, &saigon)
	var near struct {
		Items []booking.SiteDistance
		Next  *string
	}
	e.do(call{method: "GET", path: "/api/sites?near=20.8449,106.6881&limit=1"}).expect(t, 200).decode(t, &near)
	if len(near.Items) != 1 || near.Items[0].ID != hanoi.ID || near.Items[0].DistanceKm < 80 || near.Items[0].DistanceKm > 100 ||
		len(near.Items[0].OpeningHours) != 2 || near.Next == nil {
		t.Fatalf("nearest to Hải Phòng %+v", near)
	}
	e.do(call{method: "GET", path: "/api/sites?near=20.8449,106.6881&limit=1&cursor=" + *near.Next}).expect(t, 200).decode(t, &near)
	if len(near.Items) != 1 || near.Items[0].ID != saigon.ID || near.Next != nil {
		t.Fatalf("second and last nearest to Hải Phòng %+v", near)
	}
	e.do(call{method: "GET", path: "/api/sites?near=91,0"}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/sites?near=1.5", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/sites?near=NaN,1", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	e.do(call{method: "GET", path: "/api/sites?limit=1"}).expect(t, 200).decode(t, &sites)
	if len(sites.Items) != 1 || sites.Items[0].ID != first.ID {
		t.Fatalf("first page %+v", sites.Items)
	}

	// A department of the new site, and its doctor.
	var dept booking.Department
	e.do(call{method: "POST", path: "/api/admin/departments", token: e.admin, body: map[string]any{
		"name": "Nhi khoa", "siteId": hanoi.ID}}).expect(t, 201).decode(t, &dept)
	e.do(call{method: "POST", path: "/api/admin/departments", token: e.admin, body: map[string]any{
		"name": "Ghost", "siteId": 999999}}).expect(t, 404, booking.CodeNotFound)
	var doc booking.Doctor
	e.do(call{method: "POST", path: "/api/admin/doctors", token: e.admin, body: map[string]any{
		"name": "BS. Trần", "departmentId": dept.ID, "timezone": "Asia/Ho_Chi_Minh"}}).expect(t, 201).decode(t, &doc)
	var doctors struct{ Items []booking.Doctor }
	e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors?site=%d", hanoi.ID)}).expect(t, 200).decode(t, &doctors)
	if len(doctors.Items) != 1 || doctors.Items[0].ID != doc.ID {
		t.Fatalf("doctors of the site %+v", doctors.Items)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors?site=%d", first.ID)}).expect(t, 200).decode(t, &doctors)
	if len(doctors.Items) != 2 || doctors.Items[0].ID != f.doctor.ID {
		t.Fatalf("doctors of the first site %+v", doctors.Items)
	}
	var depts struct{ Items []booking.Department }
	e.do(call{method: "GET", path: fmt.Sprintf("/api/departments?site=%d", hanoi.ID)}).expect(t, 200).decode(t, &depts)
	if len(depts.Items) != 1 || depts.Items[0].ID != dept.ID || depts.Items[0].SiteID != hanoi.ID {
		t.Fatalf("departments of the site %+v", depts.Items)
	}
	e.do(call{method: "GET", path: "/api/doctors?site=0", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/departments?site=x", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/availability?service=1&site=-1", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
}

// TestFirstAvailableNear: the places of the nearest site come first,
// whatever their start; a site without a position is left out.
func TestFirstAvailableNear(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	var sites struct{ Items []booking.Site }
	e.do(call{method: "GET", path: "/api/sites"}).expect(t, 200).decode(t, &sites)
	paris := sites.Items[0]
	var lyon booking.Site
	e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
		"name": "Lyon", "lat": 45.764, "lon": 4.8357, "timezone": "Europe/Paris"}}).expect(t, 201).decode(t, &lyon)
	var dept booking.Department
	e.do(call{method: "POST", path: "/api/admin/departments", token: e.admin, body: map[string]any{
		"name": "Cardiologie", "siteId": lyon.ID}}).expect(t, 201).decode(t, &dept)
	var doc booking.Doctor
	e.do(call{method: "POST", path: "/api/admin/doctors", token: e.admin, body: map[string]any{
		"name": "Dr. Rhône", "departmentId": dept.ID, "timezone": "Europe/Paris"}}).expect(t, 201).decode(t, &doc)
	start := t0.Add(48 * time.Hour)
	e.slot(f, 1, func(s *booking.Slot) { s.DoctorID, s.StartAt, s.EndAt = doc.ID, start, start.Add(30*time.Minute) })
	later := start.Add(2 * time.Hour)
	e.slot(f, 1, func(s *booking.Slot) { s.DoctorID, s.StartAt, s.EndAt = f.doctor.ID, later, later.Add(30*time.Minute) })
	svc, err := e.db.CreateService(t.Context(), booking.Service{Name: "Consultation", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{f.doctor.ID, doc.ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	var page struct{ Items []booking.Place }
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d", svc.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].DoctorID != doc.ID || page.Items[0].DistanceKm != nil {
		t.Fatalf("by start %+v", page.Items)
	}
	// Paris has no position yet: its doctor is left out.
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&near=48.8566,2.3522", svc.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].DoctorID != doc.ID {
		t.Fatalf("near Paris, without its position %+v", page.Items)
	}
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/sites/%d", paris.ID), token: e.admin, body: map[string]any{
		"lat": 48.8566, "lon": 2.3522}}).expect(t, 200)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&near=48.85,2.35", svc.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].DoctorID != f.doctor.ID || page.Items[0].SiteID != paris.ID ||
		page.Items[1].SiteID != lyon.ID || *page.Items[1].DistanceKm < 380 || *page.Items[1].DistanceKm > 400 {
		t.Fatalf("near Paris %+v", page.Items)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&near=45.76,4.84&limit=1", svc.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].DoctorID != doc.ID {
		t.Fatalf("near Lyon %+v", page.Items)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&near=100,0", svc.ID)}).expect(t, 400, booking.CodeInvalidRequest)
}

// TestTwoSitesTwoZones: a site in Paris and one in Saigon, a doctor at
// each in the site's zone: the same weekly schedule (08:00 to 09:00) makes
// slots at each site's own 08:00, the day listing reads each doctor's
// local day, and the listings and first-available by site keep them apart.
func TestTwoSitesTwoZones(t *testing.T) {
	e := newEnv(t)
	e.fixture()
	type at struct {
		name, zone string
		utc        string // 08:00 local on 3 March 2026, in UTC
	}
	var docs []booking.Doctor
	var sites []booking.Site
	for _, c := range []at{{"Paris", "Europe/Paris", "07:00"}, {"Sài Gòn", "Asia/Ho_Chi_Minh", "01:00"}} {
		var site booking.Site
		e.do(call{method: "POST", path: "/api/admin/sites", token: e.admin, body: map[string]any{
			"name": c.name, "timezone": c.zone}}).expect(t, 201).decode(t, &site)
		var dept booking.Department
		e.do(call{method: "POST", path: "/api/admin/departments", token: e.admin, body: map[string]any{
			"name": "General " + c.name, "siteId": site.ID}}).expect(t, 201).decode(t, &dept)
		var doc booking.Doctor
		e.do(call{method: "POST", path: "/api/admin/doctors", token: e.admin, body: map[string]any{
			"name": "Dr. " + c.name, "departmentId": dept.ID, "timezone": c.zone}}).expect(t, 201).decode(t, &doc)
		base := fmt.Sprintf("/api/admin/doctors/%d", doc.ID)
		e.do(post(base+"/schedules", e.admin, map[string]any{"weekdays": []int{1, 2, 3, 4, 5}, "startTime": "08:00",
			"endTime": "09:00", "slotMinutes": 30, "capacity": 1})).expect(t, 201)
		var day slotsAnswer
		e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors/%d/slots?date=2026-03-03", doc.ID)}).expect(t, 200).decode(t, &day)
		if len(day.Slots) != 2 || day.Slots[0].StartAt.UTC().Format("2006-01-02 15:04") != "2026-03-03 "+c.utc {
			t.Fatalf("%s: the day's slots %+v", c.name, day.Slots)
		}
		docs, sites = append(docs, doc), append(sites, site)
	}
	svc, err := e.db.CreateService(t.Context(), booking.Service{Name: "Consultation", Minutes: 60, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{docs[0].ID, docs[1].ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, site := range sites {
		var doctors struct{ Items []booking.Doctor }
		e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors?site=%d", site.ID)}).expect(t, 200).decode(t, &doctors)
		if len(doctors.Items) != 1 || doctors.Items[0].ID != docs[i].ID || doctors.Items[0].TimeZone != site.TimeZone {
			t.Fatalf("doctors of %s %+v", site.Name, doctors.Items)
		}
		var places struct{ Items []booking.Place }
		e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&site=%d", svc.ID, site.ID)}).expect(t, 200).decode(t, &places)
		zone, _ := time.LoadLocation(site.TimeZone)
		for _, p := range places.Items {
			if p.DoctorID != docs[i].ID || p.StartAt.In(zone).Format("15:04") != "08:00" || p.EndAt.In(zone).Format("15:04") != "09:00" {
				t.Fatalf("places of %s %+v", site.Name, places.Items)
			}
		}
		if len(places.Items) == 0 {
			t.Fatalf("no place at %s", site.Name)
		}
	}
}
