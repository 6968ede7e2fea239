package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/slotd/slotd/booking"
)

// testListPages is the contract of booking.Page on the paged lists:
// departments and doctors by ascending id, a patient's appointments by
// descending id, at most Limit rows after After (0: from the start; a zero
// Limit: every row), so that walking the pages lists every row once, a
// filter applies before the page is cut, and a row added behind the
// cursor is not seen.
func testListPages(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	for i := range 4 {
		_, err := s.CreateDepartment(f.ctx, booking.Department{Name: fmt.Sprintf("Page dept %d", i)})
		must(t, err)
	}
	all, err := s.ListAllDepartments(f.ctx, booking.Page{})
	must(t, err)
	if len(all) != 5 {
		t.Fatalf("%d departments, want 5", len(all))
	}
	walk := func(name string, list func(booking.Page) ([]int64, error), limit int, desc bool) []int64 {
		t.Helper()
		var ids []int64
		var after int64
		for range 20 {
			page, err := list(booking.Page{After: after, Limit: limit})
			must(t, err)
			if len(page) > limit {
				t.Fatalf("%s: a page of %d rows, limit %d", name, len(page), limit)
			}
			for _, id := range page {
				if after != 0 && (!desc && id <= after || desc && id >= after) {
					t.Fatalf("%s: id %d is not after the cursor %d", name, id, after)
				}
			}
			ids = append(ids, page...)
			if len(page) < limit {
				return ids
			}
			after = page[len(page)-1]
		}
		t.Fatalf("%s: paging did not end", name)
		return nil
	}
	deptIDs := func(list func(booking.Page) ([]booking.Department, error)) func(booking.Page) ([]int64, error) {
		return func(p booking.Page) ([]int64, error) {
			ds, err := list(p)
			return idsOf(ds, func(d booking.Department) int64 { return d.ID }), err
		}
	}
	want := idsOf(all, func(d booking.Department) int64 { return d.ID })
	for _, limit := range []int{1, 2, 5, 7} {
		if got := walk("departments", deptIDs(func(p booking.Page) ([]booking.Department, error) { return s.ListAllDepartments(f.ctx, p) }), limit, false); !slices.Equal(got, want) {
			t.Fatalf("all departments by pages of %d = %v, want %v", limit, got, want)
		}
	}
	// Patients see a department with an active doctor only: the fixture's
	// and all[2]; all[1]'s doctor is deactivated, the others have none.
	d1, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: "Dr. Gone", DepartmentID: all[1].ID, TimeZone: "UTC"})
	must(t, err)
	off := false
	_, err = s.UpdateDoctor(f.ctx, d1.ID, booking.DoctorUpdate{Active: &off})
	must(t, err)
	_, err = s.CreateDoctor(f.ctx, booking.Doctor{Name: "Dr. Here", DepartmentID: all[2].ID, TimeZone: "UTC"})
	must(t, err)
	offered := []int64{f.dept.ID, all[2].ID}
	for _, limit := range []int{1, 2, 5} {
		if got := walk("offered departments", deptIDs(func(p booking.Page) ([]booking.Department, error) { return s.ListDepartments(f.ctx, p) }), limit, false); !slices.Equal(got, offered) {
			t.Fatalf("departments by pages of %d = %v, want %v (with an active doctor)", limit, got, offered)
		}
	}
	if !slices.IsSorted(want) {
		t.Fatalf("departments not by id: %v", want)
	}

	// Doctors: the department filter and the active filter apply before
	// the page is cut.
	dep := all[len(all)-1].ID
	var inDep []int64
	for i := range 5 {
		d, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: fmt.Sprintf("Dr. Page %d", i), DepartmentID: dep, TimeZone: "UTC"})
		must(t, err)
		inDep = append(inDep, d.ID)
	}
	_, err = s.UpdateDoctor(f.ctx, inDep[1], booking.DoctorUpdate{Active: &off})
	must(t, err)
	active := slices.Delete(slices.Clone(inDep), 1, 2)
	doctorIDs := func(list func(booking.Page) ([]booking.Doctor, error)) func(booking.Page) ([]int64, error) {
		return func(p booking.Page) ([]int64, error) {
			ds, err := list(p)
			return idsOf(ds, func(d booking.Doctor) int64 { return d.ID }), err
		}
	}
	public := doctorIDs(func(p booking.Page) ([]booking.Doctor, error) { return s.ListDoctors(f.ctx, dep, p) })
	staff := doctorIDs(func(p booking.Page) ([]booking.Doctor, error) { return s.ListAllDoctors(f.ctx, dep, p) })
	if got := walk("doctors", public, 2, false); !slices.Equal(got, active) {
		t.Fatalf("ListDoctors by pages of 2 = %v, want %v", got, active)
	}
	if got := walk("all doctors", staff, 3, false); !slices.Equal(got, inDep) {
		t.Fatalf("ListAllDoctors by pages of 3 = %v, want %v", got, inDep)
	}
	everyone := doctorIDs(func(p booking.Page) ([]booking.Doctor, error) { return s.ListDoctors(f.ctx, 0, p) })
	if got := walk("every doctor", everyone, 2, false); len(got) != 2+1+len(active) {
		t.Fatalf("ListDoctors(0) by pages = %v, want the fixture's 2, Dr. Here and %v", got, active)
	}

	// A patient's appointments, newest first: After is an id above the page
	// (three: the most a patient holds in one day by default).
	p, other := f.patient(), f.patient()
	var booked []int64
	for range 3 {
		booked = append(booked, f.mustBook(f.slot(2).ID, p).ID)
	}
	f.mustBook(f.slot(1).ID, other)
	_, err = s.Cancel(f.ctx, booked[1], p.ID, now)
	must(t, err)
	newest := slices.Clone(booked)
	slices.Reverse(newest)
	appts := func(status booking.Status) func(booking.Page) ([]int64, error) {
		return func(pg booking.Page) ([]int64, error) {
			as, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Status: status, Page: pg})
			return idsOf(as, func(a booking.Appointment) int64 { return a.ID }), err
		}
	}
	if got := walk("appointments", appts(""), 2, true); !slices.Equal(got, newest) {
		t.Fatalf("appointments by pages of 2 = %v, want %v", got, newest)
	}
	stillBooked := slices.DeleteFunc(slices.Clone(newest), func(id int64) bool { return id == booked[1] })
	if got := walk("booked appointments", appts(booking.StatusBooked), 1, true); !slices.Equal(got, stillBooked) {
		t.Fatalf("booked appointments by pages of 1 = %v, want %v", got, stillBooked)
	}
	// A row written behind the cursor is not seen by the pages after it.
	first, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Page: booking.Page{Limit: 2}})
	must(t, err)
	late := f.mustBook(f.slot(1).ID, p)
	rest, err := s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: p.ID, Page: booking.Page{After: first[1].ID, Limit: booking.MaxPageLimit}})
	must(t, err)
	if ids := idsOf(rest, func(a booking.Appointment) int64 { return a.ID }); slices.Contains(ids, late.ID) || len(ids) != 1 {
		t.Fatalf("after the cursor %d: %v (the late %d must not be there)", first[1].ID, ids, late.ID)
	}
}

func idsOf[T any](rows []T, id func(T) int64) []int64 {
	out := make([]int64, 0, len(rows))
	for _, r := range rows {
		out = append(out, id(r))
	}
	return out
}
