package httpapi

import (
	"fmt"
	"testing"

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
