package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func testCatalog(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)

	_, err := s.CreateDepartment(f.ctx, booking.Department{Name: "Cardiology"})
	wantCode(t, err, booking.CodeConflict)
	derm, err := s.CreateDepartment(f.ctx, booking.Department{Name: "Dermatology"})
	must(t, err)
	if derm.ID == 0 || derm.ID == f.dept.ID {
		t.Fatalf("department id %d", derm.ID)
	}
	// Dermatology has no doctor yet: staff see it, patients do not.
	depts, err := s.ListAllDepartments(f.ctx, booking.Page{})
	must(t, err)
	if len(depts) != 2 {
		t.Fatalf("want 2 departments, got %d", len(depts))
	}
	offered := func(want ...int64) {
		t.Helper()
		ds, err := s.ListDepartments(f.ctx, booking.Page{})
		must(t, err)
		if got := idsOf(ds, func(d booking.Department) int64 { return d.ID }); !slices.Equal(got, want) {
			t.Fatalf("ListDepartments = %v, want %v", got, want)
		}
	}
	offered(f.dept.ID)

	_, err = s.CreateDoctor(f.ctx, booking.Doctor{Name: "Nobody", DepartmentID: 999999, TimeZone: "UTC"})
	wantCode(t, err, booking.CodeNotFound)
	d3, err := s.CreateDoctor(f.ctx, booking.Doctor{Name: "Dr. Skin", DepartmentID: derm.ID, TimeZone: "America/New_York"})
	must(t, err)
	offered(f.dept.ID, derm.ID)
	got, err := s.GetDoctor(f.ctx, d3.ID)
	must(t, err)
	if got.Name != "Dr. Skin" || got.TimeZone != "America/New_York" || got.DepartmentID != derm.ID {
		t.Fatalf("GetDoctor = %+v", got)
	}
	_, err = s.GetDoctor(f.ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)
	all, err := s.ListDoctors(f.ctx, 0, booking.Page{})
	must(t, err)
	inDerm, err := s.ListDoctors(f.ctx, derm.ID, booking.Page{})
	must(t, err)
	if len(all) != 3 || len(inDerm) != 1 || inDerm[0].ID != d3.ID {
		t.Fatalf("ListDoctors: all=%d derm=%v", len(all), inDerm)
	}
	// A deactivated doctor leaves ListDoctors (patients, generation, the
	// public API) but stays in ListAllDoctors, marked, for staff.
	off := false
	_, err = s.UpdateDoctor(f.ctx, d3.ID, booking.DoctorUpdate{Active: &off})
	must(t, err)
	if ds, err := s.ListDoctors(f.ctx, derm.ID, booking.Page{}); err != nil || len(ds) != 0 {
		t.Fatalf("ListDoctors after deactivation = %v, %v", ds, err)
	}
	if ds, err := s.ListDoctors(f.ctx, 0, booking.Page{}); err != nil || len(ds) != 2 {
		t.Fatalf("ListDoctors(0) after deactivation = %v, %v", ds, err)
	}
	offered(f.dept.ID) // its only doctor left
	staffAll, err := s.ListAllDoctors(f.ctx, 0, booking.Page{})
	must(t, err)
	staffDerm, err := s.ListAllDoctors(f.ctx, derm.ID, booking.Page{})
	must(t, err)
	if len(staffAll) != 3 || len(staffDerm) != 1 || staffDerm[0].ID != d3.ID || staffDerm[0].Active {
		t.Fatalf("ListAllDoctors: all=%v derm=%v", staffAll, staffDerm)
	}
	for _, d := range staffAll {
		if d.ID != d3.ID && !d.Active {
			t.Fatalf("ListAllDoctors: %+v", d)
		}
	}
	on := true
	_, err = s.UpdateDoctor(f.ctx, d3.ID, booking.DoctorUpdate{Active: &on})
	must(t, err)
	if ds, err := s.ListDoctors(f.ctx, derm.ID, booking.Page{}); err != nil || len(ds) != 1 || !ds[0].Active {
		t.Fatalf("ListDoctors after reactivation = %v, %v", ds, err)
	}
	offered(f.dept.ID, derm.ID)

	p, err := s.CreatePatient(f.ctx, booking.Patient{Name: "Ana", Phone: "+33612345678", Email: "ana@example.org"})
	must(t, err)
	gp, err := s.GetPatient(f.ctx, p.ID)
	must(t, err)
	if gp.Name != "Ana" || gp.Phone != "+33612345678" || gp.Email != "ana@example.org" {
		t.Fatalf("GetPatient = %+v", gp)
	}
	_, err = s.GetPatient(f.ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)

	sc := booking.Schedule{
		DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday, time.Wednesday, time.Friday},
		StartTime: "08:00", EndTime: "12:00", SlotMinutes: 15, Capacity: 2, FeeCents: 2500,
		HorizonDays: 14, OpensAtTime: "07:00", HoldMinutes: 10,
	}
	created, err := s.CreateSchedule(f.ctx, sc)
	must(t, err)
	if created.ID == 0 {
		t.Fatal("schedule without id")
	}
	_, err = s.CreateSchedule(f.ctx, booking.Schedule{DoctorID: 999999, Weekdays: sc.Weekdays, StartTime: "08:00", EndTime: "09:00", SlotMinutes: 15, Capacity: 1, HorizonDays: 14, OpensAtTime: "07:00", HoldMinutes: 15})
	wantCode(t, err, booking.CodeNotFound)
	list, err := s.ListSchedules(f.ctx, f.doctor.ID)
	must(t, err)
	if len(list) != 1 {
		t.Fatalf("want 1 schedule, got %d", len(list))
	}
	l := list[0]
	if len(l.Weekdays) != 3 || l.Weekdays[0] != time.Monday || l.Weekdays[2] != time.Friday ||
		l.StartTime != "08:00" || l.EndTime != "12:00" || l.SlotMinutes != 15 || l.Capacity != 2 ||
		l.FeeCents != 2500 || l.HorizonDays != 14 || l.OpensAtTime != "07:00" || l.HoldMinutes != 10 {
		t.Fatalf("schedule round trip: %+v", l)
	}
	none, err := s.ListSchedules(f.ctx, f.doctor2.ID)
	must(t, err)
	everyone, err := s.ListSchedules(f.ctx, 0)
	must(t, err)
	if len(none) != 0 || len(everyone) != 1 {
		t.Fatalf("ListSchedules: doctor2=%d all=%d", len(none), len(everyone))
	}
}

func testSlots(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	base := time.Date(2026, 7, 1, 7, 0, 0, 0, time.UTC)
	var batch []booking.Slot
	for i := 0; i < 10; i++ {
		start := base.Add(time.Duration(i) * 20 * time.Minute)
		batch = append(batch, booking.Slot{DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(20 * time.Minute),
			Capacity: 3, OpensAt: base.Add(-14 * 24 * time.Hour), Status: booking.SlotOpen, FeeCents: 100, HoldSeconds: 600})
	}
	n, err := s.InsertSlots(f.ctx, batch)
	must(t, err)
	if n != 10 {
		t.Fatalf("first InsertSlots created %d, want 10", n)
	}
	n, err = s.InsertSlots(f.ctx, batch)
	must(t, err)
	if n != 0 {
		t.Fatalf("second InsertSlots created %d, want 0", n)
	}
	more := append(batch[:2:2], booking.Slot{DoctorID: f.doctor.ID, StartAt: base.Add(-time.Hour), EndAt: base.Add(-40 * time.Minute),
		Capacity: 1, OpensAt: base.Add(-48 * time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	n, err = s.InsertSlots(f.ctx, more)
	must(t, err)
	if n != 1 {
		t.Fatalf("mixed InsertSlots created %d, want 1", n)
	}

	list, err := s.ListSlots(f.ctx, f.doctor.ID, base, base.Add(time.Hour))
	must(t, err)
	if len(list) != 3 {
		t.Fatalf("ListSlots [base, base+1h) = %d slots, want 3", len(list))
	}
	for i, sl := range list {
		want := base.Add(time.Duration(i) * 20 * time.Minute)
		if !sl.StartAt.Equal(want) || !sl.EndAt.Equal(want.Add(20*time.Minute)) || sl.Capacity != 3 ||
			sl.BookedCount != 0 || sl.FeeCents != 100 || sl.HoldSeconds != 600 || sl.Status != booking.SlotOpen ||
			sl.DoctorID != f.doctor.ID || !sl.OpensAt.Equal(base.Add(-14*24*time.Hour)) {
			t.Fatalf("slot %d = %+v", i, sl)
		}
		if sl.StartAt.Location() != time.UTC {
			t.Fatalf("slot times must come back in UTC, got %v", sl.StartAt.Location())
		}
	}
	other, err := s.ListSlots(f.ctx, f.doctor2.ID, base, base.Add(time.Hour))
	must(t, err)
	if len(other) != 0 {
		t.Fatalf("doctor2 has %d slots", len(other))
	}

	_, err = s.CreateSlot(f.ctx, batch[0])
	wantCode(t, err, booking.CodeConflict)
	_, err = s.CreateSlot(f.ctx, booking.Slot{DoctorID: 999999, StartAt: base, EndAt: base.Add(time.Minute), Capacity: 1, OpensAt: base, Status: booking.SlotOpen, HoldSeconds: 900})
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.GetSlot(f.ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)

	// Capacity never goes below the places taken; closing and reopening work.
	sl := f.slot(3)
	p1, p2 := f.patient(), f.patient()
	f.mustBook(sl.ID, p1)
	f.mustBook(sl.ID, p2)
	one := 1
	_, err = s.UpdateSlot(f.ctx, sl.ID, booking.SlotUpdate{Capacity: &one})
	wantCode(t, err, booking.CodeConflict)
	two := 2
	up, err := s.UpdateSlot(f.ctx, sl.ID, booking.SlotUpdate{Capacity: &two})
	must(t, err)
	if up.Capacity != 2 || up.BookedCount != 2 {
		t.Fatalf("after capacity 2: %+v", up)
	}
	cl := booking.SlotClosed
	up, err = s.UpdateSlot(f.ctx, sl.ID, booking.SlotUpdate{Status: &cl})
	must(t, err)
	if up.Status != booking.SlotClosed {
		t.Fatalf("status %q", up.Status)
	}
	_, err = s.UpdateSlot(f.ctx, 999999, booking.SlotUpdate{Status: &cl})
	wantCode(t, err, booking.CodeNotFound)
}
