package httpapi

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

func TestHealth(t *testing.T) {
	e := newEnv(t)
	e.do(call{method: "GET", path: "/healthz"}).expect(t, 200)
	e.do(call{method: "GET", path: "/readyz"}).expect(t, 200)
}

func TestDepartmentsAndDoctors(t *testing.T) {
	e := newEnv(t)
	var deps []booking.Department
	e.do(call{method: "GET", path: "/api/departments"}).expect(t, 200).items(t, &deps)
	if deps == nil || len(deps) != 0 {
		t.Fatalf("%#v", deps)
	}
	f := e.fixture()
	other, err := e.db.CreateDepartment(context.Background(), booking.Department{Name: "Neurology"})
	if err != nil {
		t.Fatal(err)
	}
	// Neurology has no doctor: not offered.
	e.do(call{method: "GET", path: "/api/departments"}).expect(t, 200).items(t, &deps)
	if len(deps) != 1 || deps[0].ID != f.dept.ID {
		t.Fatalf("%+v", deps)
	}
	var docs []booking.Doctor
	e.do(call{method: "GET", path: "/api/doctors"}).expect(t, 200).items(t, &docs)
	if len(docs) != 2 {
		t.Fatalf("%+v", docs)
	}
	e.do(call{method: "GET", path: "/api/doctors?departmentId=" + strconv.FormatInt(f.dept.ID, 10)}).expect(t, 200).items(t, &docs)
	if len(docs) != 2 {
		t.Fatalf("%+v", docs)
	}
	e.do(call{method: "GET", path: "/api/doctors?departmentId=" + strconv.FormatInt(other.ID, 10)}).expect(t, 200).items(t, &docs)
	if len(docs) != 0 {
		t.Fatalf("%+v", docs)
	}
	var d booking.Doctor
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor2.ID, 10)}).expect(t, 200).decode(t, &d)
	if d.TimeZone != "America/New_York" || d.Name != "Dr. Smith" {
		t.Fatalf("%+v", d)
	}
	e.do(call{method: "GET", path: "/api/doctors/98765"}).expect(t, 404, booking.CodeNotFound)
}

// TestSlotsOfLocalDay checks that ?date= is the doctor's local day: a slot
// at 23:30 UTC on 1 March is on 2 March in Berlin, and one at 03:00 UTC on
// 3 March is still 2 March in New York.
func TestSlotsOfLocalDay(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	at := func(doctor int64, start time.Time, opens time.Time) booking.Slot {
		sl, err := e.db.CreateSlot(context.Background(), booking.Slot{
			DoctorID: doctor, StartAt: start, EndAt: start.Add(30 * time.Minute),
			Capacity: 3, OpensAt: opens, Status: booking.SlotOpen, HoldSeconds: 900,
		})
		if err != nil {
			t.Fatal(err)
		}
		return sl
	}
	berlinEarly := at(f.doctor.ID, time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC), t0.Add(-time.Hour)) // 00:30 on 2 March in Berlin
	berlinLate := at(f.doctor.ID, time.Date(2026, 3, 2, 22, 30, 0, 0, time.UTC), t0.Add(-time.Hour))  // 23:30 on 2 March
	at(f.doctor.ID, time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC), t0.Add(-time.Hour))                 // 00:00 on 3 March
	nyLate := at(f.doctor2.ID, time.Date(2026, 3, 3, 3, 0, 0, 0, time.UTC), t0.Add(-time.Hour))       // 22:00 on 2 March in New York

	var day slotsAnswer
	a := e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots?date=2026-03-02"}).expect(t, 200)
	a.decode(t, &day)
	if day.Date != "2026-03-02" || day.TimeZone != "Europe/Berlin" || day.DoctorID != f.doctor.ID || len(day.Slots) != 2 ||
		day.Slots[0].ID != berlinEarly.ID || day.Slots[1].ID != berlinLate.ID {
		t.Fatalf("%+v", day)
	}
	s0 := day.Slots[0]
	if s0.Capacity != 3 || s0.Remaining != 3 || s0.Booked != 0 || s0.Status != "OPEN" || !s0.StartAt.Equal(berlinEarly.StartAt) {
		t.Fatalf("%+v", s0)
	}
	etag := a.header.Get("ETag")
	if etag == "" || a.header.Get("Cache-Control") == "" {
		t.Fatalf("ETag %q Cache-Control %q", etag, a.header.Get("Cache-Control"))
	}
	// Revalidation.
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots?date=2026-03-02", header: map[string]string{"If-None-Match": etag}}).expect(t, 304)

	// Default: today in the doctor's zone. At t0 (06:00 UTC) it is 2 March in Berlin...
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots"}).expect(t, 200).decode(t, &day)
	if day.Date != "2026-03-02" || len(day.Slots) != 2 {
		t.Fatalf("%+v", day)
	}
	// ...and at 04:00 UTC on 3 March it is still 2 March in New York.
	e.clock.set(time.Date(2026, 3, 3, 4, 0, 0, 0, time.UTC))
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor2.ID, 10) + "/slots"}).expect(t, 200).decode(t, &day)
	if day.Date != "2026-03-02" || len(day.Slots) != 1 || day.Slots[0].ID != nyLate.ID || day.TimeZone != "America/New_York" {
		t.Fatalf("%+v", day)
	}
	e.clock.set(t0)

	// A booking shows in the list (and changes the ETag).
	p := e.patient()
	e.do(book(e.patientToken(p.ID), "k", slotBody(berlinLate.ID))).expect(t, 201)
	a = e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots?date=2026-03-02", header: map[string]string{"If-None-Match": etag}}).expect(t, 200)
	a.decode(t, &day)
	if day.Slots[1].Booked != 1 || day.Slots[1].Remaining != 2 || a.header.Get("ETag") == etag {
		t.Fatalf("%+v", day.Slots[1])
	}

	var one slotView
	e.do(call{method: "GET", path: "/api/slots/" + strconv.FormatInt(berlinLate.ID, 10)}).expect(t, 200).decode(t, &one)
	if one.Booked != 1 || one.Remaining != 2 {
		t.Fatalf("%+v", one)
	}
	e.do(call{method: "GET", path: "/api/slots/424242"}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: "/api/doctors/424242/slots"}).expect(t, 404, booking.CodeNotFound)
}

// TestSlotsAcrossDST lists the spring-forward day in Berlin (29 March 2026,
// 23 hours long) from a schedule.
func TestSlotsAcrossDST(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	loc, _ := time.LoadLocation("Europe/Berlin")
	sc := booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Sunday}, StartTime: "01:00", EndTime: "04:00", SlotMinutes: 30, Capacity: 1}
	if err := schedule.Normalize(&sc); err != nil {
		t.Fatal(err)
	}
	sc, err := e.db.CreateSchedule(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	d := schedule.Date{Year: 2026, Month: time.March, Day: 29}
	if _, _, err := schedule.Apply(context.Background(), e.db, schedule.Generation{Schedule: sc, Location: loc, From: d, To: d}); err != nil {
		t.Fatal(err)
	}
	var day slotsAnswer
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots?date=2026-03-29"}).expect(t, 200).decode(t, &day)
	want := schedule.Slots(sc, loc, d, d)
	if len(day.Slots) != len(want) || len(want) == 0 {
		t.Fatalf("%d slots, want %d", len(day.Slots), len(want))
	}
	for i, s := range day.Slots {
		if !s.StartAt.Equal(want[i].StartAt) {
			t.Fatalf("slot %d at %v, want %v", i, s.StartAt, want[i].StartAt)
		}
	}
}

func TestAvailability(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ctx := context.Background()
	mk := func(start time.Time, capacity int) booking.Slot {
		sl, err := e.db.CreateSlot(ctx, booking.Slot{DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
			Capacity: capacity, OpensAt: t0.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
		if err != nil {
			t.Fatal(err)
		}
		return sl
	}
	a := mk(time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC), 2)
	mk(time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC), 3) // 00:30 on 3 March in Berlin
	c := mk(time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC), 4)
	st := booking.SlotClosed
	if _, err := e.db.UpdateSlot(ctx, c.ID, booking.SlotUpdate{Status: &st}); err != nil {
		t.Fatal(err)
	}
	p := e.patient()
	e.do(book(e.patientToken(p.ID), "k", slotBody(a.ID))).expect(t, 201)

	var av availabilityAnswer
	base := "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/availability"
	e.do(call{method: "GET", path: base + "?from=2026-03-02&to=2026-03-04"}).expect(t, 200).decode(t, &av)
	want := []dayAvailability{
		{Date: "2026-03-02", Total: 2, Booked: 1, Remaining: 1},
		{Date: "2026-03-03", Total: 3, Booked: 0, Remaining: 3},
		{Date: "2026-03-04"}, // its only slot is closed
	}
	if av.From != "2026-03-02" || av.To != "2026-03-04" || av.TimeZone != "Europe/Berlin" || len(av.Days) != len(want) {
		t.Fatalf("%+v", av)
	}
	for i := range want {
		if av.Days[i] != want[i] {
			t.Fatalf("day %d: %+v, want %+v", i, av.Days[i], want[i])
		}
	}
	// Defaults: 14 days from today; one day; the 62-day maximum.
	e.do(call{method: "GET", path: base}).expect(t, 200).decode(t, &av)
	if av.From != "2026-03-02" || av.To != "2026-03-15" || len(av.Days) != 14 {
		t.Fatalf("%s..%s %d", av.From, av.To, len(av.Days))
	}
	e.do(call{method: "GET", path: base + "?from=2026-03-03&to=2026-03-03"}).expect(t, 200).decode(t, &av)
	if len(av.Days) != 1 || av.Days[0].Total != 3 {
		t.Fatalf("%+v", av)
	}
	e.do(call{method: "GET", path: base + "?from=2026-03-01&to=2026-05-01"}).expect(t, 200).decode(t, &av)
	if len(av.Days) != 62 {
		t.Fatalf("%d days", len(av.Days))
	}
	e.do(call{method: "GET", path: base + "?from=2026-03-01&to=2026-05-02"}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: base + "?from=2026-03-04&to=2026-03-03"}).expect(t, 400, booking.CodeInvalidRequest)
}

// TestSlotBookable: a slot says whether it can be booked at the answer's
// time, by booking.Slot.Bookable, in the day's list and on its own: not
// once it has started, before booking opens, when full or closed.
func TestSlotBookable(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	slot := func(start, opens time.Time, capacity int, status string) booking.Slot {
		sl, err := e.db.CreateSlot(context.Background(), booking.Slot{
			DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(15 * time.Minute),
			Capacity: capacity, OpensAt: opens, Status: status, HoldSeconds: 900,
		})
		if err != nil {
			t.Fatal(err)
		}
		return sl
	}
	started := slot(t0.Add(-5*time.Minute), t0.Add(-24*time.Hour), 3, booking.SlotOpen)
	open := slot(t0.Add(2*time.Hour), t0.Add(-time.Hour), 3, booking.SlotOpen)
	soon := slot(t0.Add(3*time.Hour), t0.Add(time.Hour), 3, booking.SlotOpen)
	full := slot(t0.Add(4*time.Hour), t0.Add(-time.Hour), 1, booking.SlotOpen)
	closed := slot(t0.Add(5*time.Hour), t0.Add(-time.Hour), 3, booking.SlotClosed)
	p := e.patient()
	e.do(book(e.patientToken(p.ID), "bookable-full", slotBody(full.ID))).expect(t, 201)

	want := map[int64]bool{started.ID: false, open.ID: true, soon.ID: false, full.ID: false, closed.ID: false}
	var day slotsAnswer
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots?date=2026-03-02"}).expect(t, 200).decode(t, &day)
	if len(day.Slots) != len(want) {
		t.Fatalf("%d slots listed, want %d: %+v", len(day.Slots), len(want), day.Slots)
	}
	for _, s := range day.Slots {
		if s.Bookable != want[s.ID] {
			t.Errorf("listed slot %d (start %s, opens %s, %d/%d, %s): bookable %v", s.ID, s.StartAt, s.OpensAt, s.Booked, s.Capacity, s.Status, s.Bookable)
		}
		var one slotView
		e.do(call{method: "GET", path: "/api/slots/" + strconv.FormatInt(s.ID, 10)}).expect(t, 200).decode(t, &one)
		if one.Bookable != want[s.ID] {
			t.Errorf("GET /api/slots/%d: bookable %v", s.ID, one.Bookable)
		}
	}
	// Once the open slot has started, it is bookable no more.
	e.clock.set(open.StartAt)
	var one slotView
	e.do(call{method: "GET", path: "/api/slots/" + strconv.FormatInt(open.ID, 10)}).expect(t, 200).decode(t, &one)
	if one.Bookable {
		t.Error("a started slot is still bookable")
	}
}
