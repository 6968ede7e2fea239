package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// nextDose books the next dose of series booking id for p in slot with key at.
func (f *fixture) nextDose(p booking.Patient, id, slot int64, key string, at time.Time) (booking.SeriesResult, error) {
	return f.s.BookNextDose(f.ctx, booking.NextDoseRequest{PatientID: p.ID, BookingID: id, SlotID: slot, IdempotencyKey: key,
		Fingerprint: booking.NextDoseFingerprint(id, slot)}, at)
}

// A patient books dose 1 alone, then dose 2 inside its window counted from
// dose 1's actual slot (moved by a reschedule): refused outside it,
// replayed by its key, refused once every dose is booked, after a dose
// not given, for another patient's booking; dose 1 given (COMPLETED)
// lets dose 2 be booked; each dose is reminded on its own; cancelling
// dose 1 cancels the dose booked later.
func testNextDose(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ds := f.seriesOf()
	d2 := onDoctor(f.doctor2.ID)
	day1 := now.Add(48 * time.Hour)
	first := f.slot(2, startsAt(day1), d2)
	moved := f.slot(2, startsAt(day1.Add(2*24*time.Hour)), d2)
	early := f.slot(2, startsAt(day1.Add(20*24*time.Hour)), d2)
	late := f.slot(2, startsAt(day1.Add(29*24*time.Hour)), d2)
	paid := f.slot(2, startsAt(day1.Add(25*24*time.Hour)), d2, withFee(1000))
	p := f.patient()

	one, err := f.bookSeries(ds, p, "dose1", first.ID)
	must(t, err)
	if len(one.Booking.Appointments) != 1 || one.Booking.Appointments[0].SlotID != first.ID {
		t.Fatalf("dose 1 alone: %+v", one.Booking)
	}
	wantWhole(t, s) // a series booked up to dose 1 is whole
	id := one.Booking.ID
	for _, sl := range []booking.Slot{early, late} {
		_, err := f.nextDose(p, id, sl.ID, fmt.Sprint("out-", sl.ID), now)
		wantCode(t, err, booking.CodeDoseOutsideWindow)
		if e := errorsAs(err); e.SlotID != sl.ID {
			t.Fatalf("refusal names slot %d, want %d", e.SlotID, sl.ID)
		}
	}
	_, err = f.nextDose(p, id, paid.ID, "paid", now)
	wantCode(t, err, booking.CodeInvalidRequest)
	_, err = f.nextDose(p, id, 1<<40, "no-slot", now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = f.nextDose(p, 1<<40, late.ID, "no-booking", now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = f.nextDose(f.patient(), id, late.ID, "not-mine", now)
	wantCode(t, err, booking.CodeNotFound)
	if activeOf(t, h, s, p.ID) != 1 || f.getSlot(late.ID).BookedCount != 0 {
		t.Fatal("a refused dose left an appointment")
	}

	// Dose 1 moved two days later: the window moves with it, and the
	// late slot, 27 days after, is now inside.
	if _, err := reschedule(f, one.Booking.Appointments[0], moved.ID, "move"); err != nil {
		t.Fatal(err)
	}
	two, err := f.nextDose(p, id, late.ID, "dose2", now)
	must(t, err)
	as := two.Booking.Appointments
	if two.Replayed || two.Booking.ID != id || len(as) != 2 || as[0].SlotID != moved.ID || as[1].SlotID != late.ID ||
		as[1].Status != booking.StatusBooked || as[1].PatientID != p.ID {
		t.Fatalf("dose 2 booked %+v", two)
	}
	again, err := f.nextDose(p, id, late.ID, "dose2", now)
	must(t, err)
	if !again.Replayed || len(again.Booking.Appointments) != 2 || again.Booking.Appointments[1].ID != as[1].ID {
		t.Fatalf("retry answered %+v, want a replay of dose %d", again, as[1].ID)
	}
	_, err = f.nextDose(p, id, early.ID, "dose2", now)
	wantCode(t, err, booking.CodeKeyReused)
	_, err = f.nextDose(p, id, early.ID, "dose3", now)
	wantCode(t, err, booking.CodeConflict)
	if f.getSlot(late.ID).BookedCount != 1 {
		t.Fatalf("dose 2's slot counter %d", f.getSlot(late.ID).BookedCount)
	}

	// Each dose is reminded on its own, 24 h before its start.
	for _, a := range as {
		_, err := s.SendReminders(f.ctx, booking.DefaultReminders, a.StartAt.Add(-24*time.Hour), 1000)
		must(t, err)
	}
	reminded := map[int64]string{}
	for _, n := range h.Inspect(t, s).Notifications(t) {
		if n.Kind == booking.NotifyReminder {
			reminded[n.AppointmentID] += n.Ref
		}
	}
	for _, a := range as {
		if reminded[a.ID] != "1440m" {
			t.Fatalf("dose %d reminded %q, want 1440m", a.ID, reminded[a.ID])
		}
	}

	// A dose not given ends the series: dose 1 cancelled.
	q := f.patient()
	qs, err := f.bookSeries(ds, q, "dose1", first.ID)
	must(t, err)
	_, err = s.Cancel(f.ctx, qs.Booking.Appointments[0].ID, q.ID, now)
	must(t, err)
	_, err = f.nextDose(q, qs.Booking.ID, late.ID, "dose2", now)
	wantCode(t, err, booking.CodeConflict)

	// Dose 1 given: dose 2 is booked after its visit, in the window of
	// its slot.
	soon := now.Add(90 * time.Minute)
	given := f.slot(1, startsAt(soon), d2)
	after := f.slot(1, startsAt(soon.Add(22*24*time.Hour)), d2)
	r := f.patient()
	rs, err := f.bookSeries(ds, r, "dose1", given.ID)
	must(t, err)
	visited := soon.Add(time.Hour)
	if _, err := s.Transition(f.ctx, rs.Booking.Appointments[0].ID, booking.StatusCompleted, visited); err != nil {
		t.Fatal(err)
	}
	rd, err := f.nextDose(r, rs.Booking.ID, after.ID, "dose2", visited)
	must(t, err)
	if got := rd.Booking.Appointments; len(got) != 2 || got[0].Status != booking.StatusCompleted || got[1].Status != booking.StatusBooked {
		t.Fatalf("after dose 1 given: %+v", got)
	}

	// The account's list: newest first, one page at a time, each booking
	// with its doses.
	page, err := s.ListAccountSeriesBookings(f.ctx, p.ID, booking.Page{Limit: 10})
	must(t, err)
	if len(page) != 1 || page[0].ID != id || len(page[0].Appointments) != 2 || page[0].Appointments[1].ID != as[1].ID {
		t.Fatalf("p's series bookings %+v", page)
	}
	extra, err := f.bookSeries(ds, p, "another", f.slot(1, startsAt(day1.Add(60*24*time.Hour)), d2).ID)
	must(t, err)
	page, err = s.ListAccountSeriesBookings(f.ctx, p.ID, booking.Page{Limit: 1})
	must(t, err)
	if len(page) != 1 || page[0].ID != extra.Booking.ID {
		t.Fatalf("first page %+v, want booking %d", page, extra.Booking.ID)
	}
	page, err = s.ListAccountSeriesBookings(f.ctx, p.ID, booking.Page{Limit: 1, After: extra.Booking.ID})
	must(t, err)
	if len(page) != 1 || page[0].ID != id {
		t.Fatalf("second page %+v, want booking %d", page, id)
	}

	// Cancelling dose 1 cancels the dose booked later.
	_, err = s.Cancel(f.ctx, as[0].ID, p.ID, now)
	must(t, err)
	if got, _ := s.GetAppointment(f.ctx, as[1].ID); got.Status != booking.StatusCancelled || f.getSlot(late.ID).BookedCount != 0 {
		t.Fatalf("dose 2 after dose 1 was cancelled: %s, counter %d", got.Status, f.getSlot(late.ID).BookedCount)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}

// The next doses of many patients race single bookings for the last
// places of one slot, each patient's request sent twice with one key, and
// some patients cancelling dose 1 at the same time: the slot is never
// oversold, each key makes one dose at most (the other answer its replay,
// or a refusal that came first), and no series keeps a dose after a
// cancelled one.
func testRaceNextDose(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	const patients, singles, cancels, capacity = 12, 4, 3, 5
	first := f.slot(patients, startsAt(day1), onDoctor(f.doctor2.ID))
	target := f.slot(capacity, startsAt(day1.Add(22*24*time.Hour)), onDoctor(f.doctor2.ID))
	ps := f.patients(patients + singles)
	books := make([]booking.SeriesBooking, patients)
	for i := range patients {
		res, err := f.bookSeries(ds, ps[i], "dose1", first.ID)
		must(t, err)
		books[i] = res.Booking
	}
	type answer struct {
		res booking.SeriesResult
		err error
	}
	var mu sync.Mutex
	answers := map[int][]answer{}
	var o outcomes
	release(2*patients+singles+cancels, func(i int) {
		switch {
		case i < 2*patients:
			k := i % patients
			res, err := f.nextDose(ps[k], books[k].ID, target.ID, "dose2", now)
			mu.Lock()
			answers[k] = append(answers[k], answer{res, err})
			mu.Unlock()
		case i < 2*patients+singles:
			p := ps[patients+i-2*patients]
			o.add(f.book(target.ID, req(p, target.ID, "single")))
		default:
			k := i - 2*patients - singles
			if _, err := s.Cancel(f.ctx, books[k].Appointments[0].ID, ps[k].ID, now); err != nil {
				t.Errorf("cancel dose 1 of patient %d: %v", ps[k].ID, err)
			}
		}
	})
	// A refusal is slot-full, or for a patient cancelling dose 1, the
	// series ended (conflict), whichever came first.
	refused := func(c booking.Code, k int) bool {
		return c == booking.CodeSlotFull || k < cancels && c == booking.CodeConflict
	}
	won := 0
	for k := range patients {
		a, b := answers[k][0], answers[k][1]
		if a.err != nil && b.err == nil {
			a, b = b, a
		}
		switch ca, cb := booking.ErrorCode(a.err), booking.ErrorCode(b.err); {
		case a.err == nil && b.err == nil:
			if a.res.Replayed == b.res.Replayed || a.res.Booking.Appointments[1].ID != b.res.Booking.Appointments[1].ID {
				t.Fatalf("patient %d: one key answered %+v and %+v", ps[k].ID, a.res, b.res)
			}
			won++
		case a.err == nil && a.res.Replayed:
			t.Fatalf("patient %d: a replay of nothing booked (the other refused: %v)", ps[k].ID, b.err)
		case a.err == nil && refused(cb, k):
			won++ // refused first, booked after a cancel freed a place
		case refused(ca, k) && refused(cb, k):
		default:
			t.Fatalf("patient %d: answered %v and %v", ps[k].ID, a.err, b.err)
		}
	}
	if won == 0 {
		t.Fatal("no next dose won: the race proves nothing")
	}
	if o.n["ok"]+o.n[string(booking.CodeSlotFull)] != singles {
		t.Fatalf("single bookings answered %v", o.n)
	}
	if got := f.getSlot(target.ID).BookedCount; got > capacity || won+o.n["ok"] < capacity {
		t.Fatalf("target: counter %d of %d after %d next doses and %d singles", got, capacity, won, o.n["ok"])
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}
