package storetest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// writeCounter counts what a generation pass asks of the store: the
// insert calls, the marks written and the doctors looked up.
type writeCounter struct {
	booking.Store
	inserts, marks, doctors atomic.Int64
}

func (c *writeCounter) InsertSlots(ctx context.Context, sl []booking.Slot) (int, error) {
	c.inserts.Add(1)
	return c.Store.InsertSlots(ctx, sl)
}

func (c *writeCounter) MarkGenerated(ctx context.Context, id int64, through string) error {
	c.marks.Add(1)
	return c.Store.MarkGenerated(ctx, id, through)
}

func (c *writeCounter) GetDoctor(ctx context.Context, id int64) (booking.Doctor, error) {
	c.doctors.Add(1)
	return c.Store.GetDoctor(ctx, id)
}

// calls returns and resets the counts.
func (c *writeCounter) calls() [3]int64 {
	return [3]int64{c.inserts.Swap(0), c.marks.Swap(0), c.doctors.Swap(0)}
}

// testGeneratedThrough: the rolling pass generates only the days after a
// schedule's mark. A restart with nothing due asks the store for nothing
// but the two lists; a new day (or the days of a downtime) is generated
// once; an edited schedule regenerates and is marked; the days a closure
// made generation skip appear when it is lifted.
func testGeneratedThrough(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ctx := context.Background()
	cs := &writeCounter{Store: s}
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	svc := service.NewService(cs, service.Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }, Timeout: time.Minute})
	advance := func(days int) { clock.Add(int64(days) * int64(24*time.Hour)) }
	loc, err := time.LoadLocation(f.doctor.TimeZone)
	must(t, err)
	day := func(d time.Time) int { // slots on local day d (a UTC midnight)
		start := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
		ss, err := s.ListSlots(ctx, f.doctor.ID, start, start.AddDate(0, 0, 1))
		must(t, err)
		return len(ss)
	}
	every := []time.Weekday{0, 1, 2, 3, 4, 5, 6}
	sc, n, err := svc.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: every,
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	_, last := service.WindowDays(sc, loc, now)
	if n != 16 || day(last) != 2 {
		t.Fatalf("CreateSchedule created %d slots (%d on its last day %s), want 16 (2)", n, day(last), last.Format(time.DateOnly))
	}
	pass := func(want int, wantCalls [3]int64, what string) {
		t.Helper()
		cs.calls()
		created, err := svc.ExtendSchedules(ctx, false)
		must(t, err)
		if got := cs.calls(); created != want || got != wantCalls {
			t.Fatalf("%s: created %d, store calls (inserts, marks, doctor look-ups) %v; want %d, %v", what, created, got, want, wantCalls)
		}
	}
	pass(0, [3]int64{}, "a pass right after the schedule was created (a restart with nothing due)")

	advance(1)
	pass(2, [3]int64{1, 1, 1}, "the next day")
	if day(last.AddDate(0, 0, 1)) != 2 {
		t.Fatal("the new day's slots are missing")
	}
	pass(0, [3]int64{}, "the same day again")

	advance(3) // down for three days
	pass(6, [3]int64{1, 1, 1}, "after three days down")
	pass(0, [3]int64{}, "again after the downtime")

	// An edit regenerates the window and marks it: the next pass has
	// nothing to do.
	sc.EndTime = "10:00"
	_, _, created, err := svc.UpdateSchedule(ctx, sc)
	must(t, err)
	if created == 0 || day(last.AddDate(0, 0, 4)) != 4 {
		t.Fatalf("UpdateSchedule created %d, %d slots on the last day; want 4 there", created, day(last.AddDate(0, 0, 4)))
	}
	pass(0, [3]int64{}, "after an edit")

	// A closure over the two days beyond the horizon: the passes skip
	// them (and mark past them); lifting it generates them.
	end := last.AddDate(0, 0, 4)
	from := time.Date(end.Year(), end.Month(), end.Day()+1, 0, 0, 0, 0, loc)
	res, err := svc.Suspend(ctx, booking.Suspension{Scope: booking.ScopeDoctor, DoctorID: f.doctor.ID,
		From: from, To: from.AddDate(0, 0, 2), Reason: "congress"})
	must(t, err)
	advance(3)
	pass(4, [3]int64{1, 1, 1}, "three days later, two of them closed")
	if day(end.AddDate(0, 0, 1)) != 0 || day(end.AddDate(0, 0, 2)) != 0 || day(end.AddDate(0, 0, 3)) != 4 {
		t.Fatal("the closed days got slots, or the day after them none")
	}
	_, err = svc.LiftSuspension(ctx, res.Suspension.ID)
	must(t, err)
	if a, b := day(end.AddDate(0, 0, 1)), day(end.AddDate(0, 0, 2)); a != 4 || b != 4 {
		t.Fatalf("after the lift the formerly closed days have %d and %d slots, want 4 each", a, b)
	}
	pass(0, [3]int64{}, "after the lift")

	// The mark is the store's: another instance (a restart) sees it.
	fresh := service.NewService(cs, service.Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }, Timeout: time.Minute})
	cs.calls()
	if c, err := fresh.ExtendSchedules(ctx, false); err != nil || cs.calls() != [3]int64{} || c != 0 {
		t.Fatalf("a restarted instance's pass created %d (%v) or asked the store for writes", c, err)
	}
}
