package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// seriesOf creates a two-dose series, dose 2 21 to 28 days after dose 1.
func (f *fixture) seriesOf() booking.DoseSeries {
	f.t.Helper()
	ds, err := f.s.CreateDoseSeries(f.ctx, booking.DoseSeries{Name: "Two doses", Windows: []booking.DoseWindow{{MinDays: 21, MaxDays: 28}}}, now)
	must(f.t, err)
	return ds
}

// bookSeries books series ds for p in slots with key.
func (f *fixture) bookSeries(ds booking.DoseSeries, p booking.Patient, key string, slots ...int64) (booking.SeriesResult, error) {
	return f.s.BookSeries(f.ctx, booking.SeriesRequest{PatientID: p.ID, SeriesID: ds.ID, SlotIDs: slots, IdempotencyKey: key,
		Fingerprint: booking.SeriesFingerprint(ds.ID, slots)}, now)
}

// activeOf counts p's active appointments.
func activeOf(t testing.TB, h Harness, s booking.Store, p int64) int {
	n := 0
	for _, a := range h.Inspect(t, s).ActiveAppointments(t) {
		if a.PatientID == p {
			n++
		}
	}
	return n
}

// wantWhole fails unless the reconciliation finds every series whole and
// nothing else wrong.
func wantWhole(t testing.TB, s booking.Store) {
	t.Helper()
	rep, err := s.Reconcile(t.Context(), now, false)
	must(t, err)
	if !rep.Sound() || len(rep.BrokenSeries) != 0 {
		t.Fatalf("reconciliation: %d violations, broken series %v", rep.Violations(), rep.BrokenSeries)
	}
}

func testSeries(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ds := f.seriesOf()
	if got, err := s.ListDoseSeries(f.ctx, booking.Page{Limit: 10}); err != nil || len(got) != 1 || got[0].Windows[0] != ds.Windows[0] {
		t.Fatalf("ListDoseSeries = %+v, %v", got, err)
	}
	day1 := now.Add(48 * time.Hour)
	first := f.slot(2, startsAt(day1))
	second := f.slot(2, startsAt(day1.Add(22*24*time.Hour)))
	early := f.slot(2, startsAt(day1.Add(20*24*time.Hour)))
	late := f.slot(2, startsAt(day1.Add(29*24*time.Hour)))
	paid := f.slot(2, startsAt(day1.Add(23*24*time.Hour)), withFee(1000))
	p := f.patient()

	res, err := f.bookSeries(ds, p, "s1", first.ID, second.ID)
	must(t, err)
	as := res.Booking.Appointments
	if res.Replayed || len(as) != 2 || as[0].SlotID != first.ID || as[1].SlotID != second.ID || res.Booking.ID == 0 {
		t.Fatalf("series booked %+v", res)
	}
	for _, a := range as {
		if a.Status != booking.StatusBooked || a.PatientID != p.ID || a.QueueNumber != 1 {
			t.Fatalf("dose %+v", a)
		}
	}
	again, err := f.bookSeries(ds, p, "s1", first.ID, second.ID)
	must(t, err)
	if !again.Replayed || again.Booking.ID != res.Booking.ID || again.Booking.Appointments[1].ID != as[1].ID {
		t.Fatalf("retry answered %+v, want a replay of %+v", again, res)
	}
	_, err = f.bookSeries(ds, p, "s1", first.ID, late.ID)
	wantCode(t, err, booking.CodeKeyReused)

	// Refusals before the places change nothing.
	q := f.patient()
	for _, c := range []struct {
		slots []int64
		code  booking.Code
	}{
		{[]int64{first.ID, early.ID}, booking.CodeDoseOutsideWindow},
		{[]int64{first.ID, late.ID}, booking.CodeDoseOutsideWindow},
		{[]int64{second.ID, first.ID}, booking.CodeDoseOutsideWindow},
		{[]int64{first.ID, second.ID, late.ID}, booking.CodeInvalidRequest},
		{[]int64{first.ID, paid.ID}, booking.CodeInvalidRequest},
		{[]int64{first.ID, 1 << 40}, booking.CodeNotFound},
	} {
		_, err := f.bookSeries(ds, q, fmt.Sprint("bad", c.slots), c.slots...)
		wantCode(t, err, c.code)
	}
	_, err = f.bookSeries(booking.DoseSeries{ID: 1 << 40}, q, "none", first.ID, second.ID)
	wantCode(t, err, booking.CodeNotFound)
	if activeOf(t, h, s, q.ID) != 0 {
		t.Fatal("a refused series left appointments")
	}

	// All or nothing: dose 2's slot full refuses dose 1 too.
	f.mustBook(second.ID, f.patient())
	_, err = f.bookSeries(ds, q, "full", first.ID, second.ID)
	wantCode(t, err, booking.CodeSlotFull)
	if e := errorsAs(err); e.SlotID != second.ID {
		t.Fatalf("refusal names slot %d, want %d", e.SlotID, second.ID)
	}
	if activeOf(t, h, s, q.ID) != 0 || f.getSlot(first.ID).BookedCount != 1 {
		t.Fatalf("a series refused at dose 2 kept dose 1 (counter %d)", f.getSlot(first.ID).BookedCount)
	}
	// The key of a refused series is free again: it made nothing.
	third := f.slot(2, startsAt(day1.Add(25*24*time.Hour)))
	qs, err := f.bookSeries(ds, q, "full", first.ID, third.ID)
	must(t, err)

	// Cancelling dose 1 cancels dose 2; cancelling dose 2 keeps dose 1.
	if _, err := s.Cancel(f.ctx, as[0].ID, p.ID, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetAppointment(f.ctx, as[1].ID); got.Status != booking.StatusCancelled {
		t.Fatalf("dose 2 after dose 1 was cancelled: %s", got.Status)
	}
	if f.getSlot(second.ID).BookedCount != 1 || f.getSlot(first.ID).BookedCount != 1 {
		t.Fatal("the cancelled doses' places were not given back")
	}
	if _, err := s.Cancel(f.ctx, qs.Booking.Appointments[1].ID, q.ID, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetAppointment(f.ctx, qs.Booking.Appointments[0].ID); got.Status != booking.StatusBooked {
		t.Fatalf("dose 1 after dose 2 was cancelled: %s", got.Status)
	}
	// A replay answers the booking as it is now.
	again, err = f.bookSeries(ds, p, "s1", first.ID, second.ID)
	must(t, err)
	if again.Booking.Appointments[0].Status != booking.StatusCancelled || again.Booking.Appointments[1].Status != booking.StatusCancelled {
		t.Fatalf("replay after the cancel: %+v", again.Booking.Appointments)
	}
	// A suspension of dose 1's day gives up dose 2 as a cancel does.
	sday := day1.Add(5 * 24 * time.Hour)
	d1 := f.slot(2, startsAt(sday), onDoctor(f.doctor2.ID))
	d2 := f.slot(2, startsAt(sday.Add(21*24*time.Hour)))
	sus, err := f.bookSeries(ds, f.patient(), "sus", d1.ID, d2.ID)
	must(t, err)
	if _, err := s.Suspend(f.ctx, booking.Suspension{DoctorID: f.doctor2.ID, From: sday, To: sday.Add(time.Hour), Reason: "storm"}, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetAppointment(f.ctx, sus.Booking.Appointments[1].ID); got.Status != booking.StatusCancelled || f.getSlot(d2.ID).BookedCount != 0 {
		t.Fatalf("dose 2 after dose 1's day was suspended: %s, counter %d", got.Status, f.getSlot(d2.ID).BookedCount)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}

// A rush for the last places: series (some of whose slots' ids run
// against their doses' order, and some across pairs) racing single
// bookings. No slot is oversold, every series is whole or absent, nothing
// deadlocks, and the reconciliation is clean.
func testRaceSeries(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	// Pair b's dose 2 slot is created first: its id is the lower.
	a1 := f.slot(3, startsAt(day1))
	a2 := f.slot(3, startsAt(day1.Add(22*24*time.Hour)))
	b2 := f.slot(3, startsAt(day1.Add(23*24*time.Hour)), onDoctor(f.doctor2.ID))
	b1 := f.slot(3, startsAt(day1.Add(2*time.Hour)), onDoctor(f.doctor2.ID))
	pairs := [][2]int64{{a1.ID, a2.ID}, {b1.ID, b2.ID}, {a1.ID, b2.ID}, {b1.ID, a2.ID}}
	const seriesN, singles = 24, 8 // two a slot: the first series decided always wins
	ps := f.patients(seriesN + singles)
	var mu sync.Mutex
	booked := map[int64][]booking.Appointment{}
	var o outcomes
	release(seriesN+singles, func(i int) {
		if i < seriesN {
			pair := pairs[i%len(pairs)]
			res, err := f.bookSeries(ds, ps[i], "series", pair[0], pair[1])
			switch code := booking.ErrorCode(err); {
			case err == nil:
				mu.Lock()
				booked[ps[i].ID] = res.Booking.Appointments
				mu.Unlock()
			case code != booking.CodeSlotFull:
				t.Errorf("series of patient %d: %v", ps[i].ID, err)
			}
			return
		}
		sl := []int64{a1.ID, a2.ID, b1.ID, b2.ID}[i%4]
		o.add(f.book(sl, req(ps[i], sl, "single")))
	})
	if o.n["ok"]+o.n[string(booking.CodeSlotFull)] != singles {
		t.Fatalf("single bookings answered %v", o.n)
	}
	taken := map[int64]int{}
	for _, a := range o.as {
		taken[a.SlotID]++
	}
	for i, p := range ps[:seriesN] {
		as, ok := booked[p.ID]
		n := activeOf(t, h, s, p.ID)
		switch {
		case ok && (len(as) != 2 || n != 2 || as[0].SlotID != pairs[i%len(pairs)][0]):
			t.Fatalf("patient %d: series %+v, %d active", p.ID, as, n)
		case !ok && n != 0:
			t.Fatalf("patient %d: refused series left %d appointments", p.ID, n)
		}
		for _, a := range as {
			taken[a.SlotID]++
		}
	}
	for _, sl := range []booking.Slot{a1, a2, b1, b2} {
		if got := f.getSlot(sl.ID).BookedCount; got != taken[sl.ID] || got > sl.Capacity {
			t.Fatalf("slot %d: counter %d, answered %d, capacity %d", sl.ID, got, taken[sl.ID], sl.Capacity)
		}
	}
	if len(booked) == 0 {
		t.Fatal("no series won: the race proves nothing")
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}
