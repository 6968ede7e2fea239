package httpapi

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/slotd/slotd/booking"
)

// TestPaging: a list answers {"items", "next"}, walking the cursors lists
// every row once, and a bad limit or cursor is a 400 that changes nothing.
func TestPaging(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	for i := range 4 {
		if _, err := e.db.CreateDoctor(t.Context(), booking.Doctor{Name: fmt.Sprintf("Dr. %d", i), DepartmentID: f.dept.ID, TimeZone: "UTC"}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := e.db.ListDoctors(t.Context(), 0, booking.Page{})
	if err != nil || len(all) < 5 {
		t.Fatalf("%d doctors, %v", len(all), err)
	}
	var got []int64
	path := "/api/doctors?limit=2"
	for range 10 {
		var docs []booking.Doctor
		next := e.do(call{method: "GET", path: path}).expect(t, 200).items(t, &docs)
		if len(docs) > 2 {
			t.Fatalf("a page of %d doctors with limit 2", len(docs))
		}
		for _, d := range docs {
			got = append(got, d.ID)
		}
		if next == "" {
			break
		}
		path = "/api/doctors?limit=2&cursor=" + url.QueryEscape(next)
	}
	var want []int64
	for _, d := range all {
		want = append(want, d.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged doctors %v, want %v", got, want)
	}
	var docs []booking.Doctor
	if next := e.do(call{method: "GET", path: "/api/doctors"}).expect(t, 200).items(t, &docs); next != "" || len(docs) != len(all) {
		t.Fatalf("default page: %d doctors, next %q", len(docs), next)
	}
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "cursor=abc", "cursor=", "cursor=" + encodeCursor(1) + "x", "limit=1&limit=2"} {
		e.do(call{method: "GET", path: "/api/doctors?" + q, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
		e.do(call{method: "GET", path: "/api/departments?" + q, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	}
	if k, ok := decodeCursor(encodeCursor(42)); !ok || k != 42 {
		t.Fatalf("cursor round trip = %d, %v", k, ok)
	}
}

// TestFindPatients: staff find patients by a name's start, a phone in any
// format, an e-mail in any case, paged; patients and doctors may not.
func TestFindPatients(t *testing.T) {
	e := newEnv(t)
	var ps []booking.Patient
	for _, name := range []string{"Anna Weber", "anna Schmidt", "Bruno", "Annabel", "Zoe"} {
		p, err := e.db.CreatePatient(t.Context(), booking.Patient{Name: name, Phone: fmt.Sprintf("+4930%07d", phones.Add(1)), Email: name[:2] + "@example.org"})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	find := func(q string, limit int) ([]int64, string) {
		t.Helper()
		var found []booking.Patient
		a := e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/patients?limit=%d&q=%s", limit, url.QueryEscape(q)), token: e.admin}).expect(t, 200)
		if a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("patient search cacheable: %q", a.header.Get("Cache-Control"))
		}
		next := a.items(t, &found)
		var ids []int64
		for _, p := range found {
			ids = append(ids, p.ID)
		}
		return ids, next
	}
	if ids, next := find("ann", 2); !slices.Equal(ids, []int64{ps[0].ID, ps[1].ID}) || next == "" {
		t.Fatalf("ann, first page = %v next %q", ids, next)
	} else {
		var found []booking.Patient
		e.do(call{method: "GET", path: "/api/admin/patients?limit=2&q=ann&cursor=" + url.QueryEscape(next), token: e.admin}).expect(t, 200).items(t, &found)
		if len(found) != 1 || found[0].ID != ps[3].ID {
			t.Fatalf("ann, second page = %+v", found)
		}
	}
	if ids, _ := find(ps[2].Phone, 10); !slices.Equal(ids, []int64{ps[2].ID}) {
		t.Fatalf("by phone = %v", ids)
	}
	if ids, _ := find("ZO@EXAMPLE.ORG", 10); !slices.Equal(ids, []int64{ps[4].ID}) {
		t.Fatalf("by e-mail = %v", ids)
	}
	if ids, _ := find("+4930 9999999", 10); len(ids) != 0 {
		t.Fatalf("unknown phone = %v", ids)
	}
	if ids, next := find("", 3); len(ids) != 3 || next == "" {
		t.Fatalf("every patient, first page = %v next %q", ids, next)
	}
	e.do(call{method: "GET", path: "/api/admin/patients", token: e.patientToken(ps[0].ID)}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "GET", path: "/api/admin/patients"}).expect(t, 401)
	long := make([]byte, booking.MaxPatientQuery+1)
	for i := range long {
		long[i] = 'a'
	}
	e.do(call{method: "GET", path: "/api/admin/patients?q=" + string(long), token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/admin/patients?cursor=zz", token: e.admin, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
}
