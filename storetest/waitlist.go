package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
)

func (f *fixture) join(p booking.Patient, key string) booking.WaitlistEntry {
	f.t.Helper()
	e := booking.WaitlistEntry{PatientID: p.ID, DoctorID: f.doctor.ID, From: now, To: now.Add(30 * 24 * time.Hour),
		PartOfDay: booking.PartAny, IdempotencyKey: key}
	must(f.t, booking.CheckWaitlistEntry(&e, now))
	got, _, err := f.s.JoinWaitlist(f.ctx, e, now)
	must(f.t, err)
	return got
}

func (f *fixture) entry(p booking.Patient) booking.WaitlistEntry {
	f.t.Helper()
	es, err := f.s.ListWaitlist(f.ctx, p.ID)
	must(f.t, err)
	if len(es) == 0 {
		f.t.Fatalf("patient %d has no entry", p.ID)
	}
	return es[0]
}

// offerViolations: every offer belongs to exactly one entry, an OFFERED
// entry's offer is a live HELD appointment of its patient in its slot.
func offerViolations(t testing.TB, f *fixture, ps []booking.Patient) []string {
	t.Helper()
	var out []string
	owner := map[int64]int64{}
	for _, p := range ps {
		es, err := f.s.ListWaitlist(f.ctx, p.ID)
		must(t, err)
		for _, e := range es {
			if e.AppointmentID == 0 {
				continue
			}
			if other, ok := owner[e.AppointmentID]; ok {
				out = append(out, fmt.Sprintf("offer %d belongs to entries %d and %d", e.AppointmentID, other, e.ID))
			}
			owner[e.AppointmentID] = e.ID
			if e.State != booking.EntryOffered {
				continue
			}
			a, err := f.s.GetAppointment(f.ctx, e.AppointmentID)
			must(t, err)
			if a.Status != booking.StatusHeld || a.PatientID != e.PatientID || a.SlotID != e.SlotID {
				out = append(out, fmt.Sprintf("entry %d is OFFERED but its offer is %+v", e.ID, a))
			}
		}
	}
	return out
}

func offerInvariants(t testing.TB, f *fixture, ps []booking.Patient) {
	t.Helper()
	if v := offerViolations(t, f, ps); len(v) > 0 {
		t.Fatal(v)
	}
}

// stressWaitlistOp is one of the stress test's reschedule and waitlist
// operations, chosen by x (78..99): move one of the worker's appointments,
// join the waitlist, run a slot's offer job, answer an offer or leave.
func stressWaitlistOp(f *fixture, x, r int, p booking.Patient, sl booking.Slot, slots []booking.Slot, w, op int,
	note func(string), mu *sync.Mutex, counts map[string]int, pick func() (apptID int64, own bool)) {
	count := func(k string) { mu.Lock(); counts[k]++; mu.Unlock() }
	switch {
	case x < 86: // reschedule
		id, own := pick()
		if id == 0 || !own {
			return
		}
		_, err := f.s.Reschedule(f.ctx, booking.RescheduleRequest{AppointmentID: id, PatientID: p.ID, SlotID: sl.ID,
			IdempotencyKey: fmt.Sprintf("r%d-%d", w, op), Fingerprint: booking.RescheduleFingerprint(id, sl.ID)}, now)
		switch c := booking.ErrorCode(err); {
		case err == nil:
			count("rescheduled")
		case c == booking.CodeSlotFull, c == booking.CodeAlreadyBooked, c == booking.CodeOverlapping, c == booking.CodeInvalidRequest,
			c == booking.CodeInvalidTransition, c == booking.CodeFeeDiffers:
			count("reschedule-" + string(c))
		default:
			note(fmt.Sprintf("reschedule %d: %v", id, err))
		}
	case x < 91: // join the waitlist
		e := booking.WaitlistEntry{PatientID: p.ID, DoctorID: sl.DoctorID, From: now, To: now.Add(10 * 24 * time.Hour),
			IdempotencyKey: fmt.Sprintf("j%d-%d", w, op)}
		if err := booking.CheckWaitlistEntry(&e, now); err != nil {
			note(err.Error())
			return
		}
		if _, _, err := f.s.JoinWaitlist(f.ctx, e, now); err != nil {
			note(fmt.Sprintf("join: %v", err))
			return
		}
		count("joined")
	case x < 95: // the offer job of a slot
		if _, err := f.s.MakeOffers(f.ctx, slots[r%len(slots)].ID, now); err != nil {
			note(fmt.Sprintf("offers: %v", err))
			return
		}
		count("offer-job")
	default: // answer the patient's newest entry: accept, decline or leave
		es, err := f.s.ListWaitlist(f.ctx, p.ID)
		if err != nil || len(es) == 0 {
			return
		}
		e := es[0]
		switch r % 3 {
		case 2:
			if _, err := f.s.LeaveWaitlist(f.ctx, e.ID, p.ID, now); err != nil {
				note(fmt.Sprintf("leave: %v", err))
			}
			count("left")
		default:
			_, _, err := f.s.AnswerOffer(f.ctx, booking.OfferAnswer{EntryID: e.ID, PatientID: p.ID, Accept: r%3 == 0}, now)
			switch c := booking.ErrorCode(err); {
			case err == nil:
				count("answered")
			case c == booking.CodeInvalidTransition:
			default:
				note(fmt.Sprintf("answer: %v", err))
			}
		}
	}
}

// 3 places released at once with 10 waiting: each is offered to exactly
// one patient in request order, never to the open rush; an expiring offer
// passes on, accept races expiry with one winner, a decline passes on, a
// patient who booked elsewhere leaves the list.
func testWaitlistOffers(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3)
	holders := f.patients(3)
	var held []booking.Appointment
	for _, p := range holders {
		held = append(held, f.mustBook(sl.ID, p))
	}
	ps := f.patients(10)
	for i, p := range ps {
		e := f.join(p, "w")
		if e.Position != i+1 || e.State != booking.EntryWaiting {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
	again, existed, err := s.JoinWaitlist(f.ctx, func() booking.WaitlistEntry {
		e := booking.WaitlistEntry{PatientID: ps[0].ID, DoctorID: f.doctor.ID, From: now, To: now.Add(30 * 24 * time.Hour), IdempotencyKey: "w"}
		must(t, booking.CheckWaitlistEntry(&e, now))
		return e
	}(), now)
	must(t, err)
	if !existed || again.ID != f.entry(ps[0]).ID {
		t.Fatal("a repeated join made another entry")
	}
	// The position counts other patients' entries whose period overlaps:
	// a later period, and the patient's own second entry, are first.
	q := f.patient()
	for _, key := range []string{"far-1", "far-2"} {
		e := booking.WaitlistEntry{PatientID: q.ID, DoctorID: f.doctor.ID, From: now.Add(40 * 24 * time.Hour), To: now.Add(41 * 24 * time.Hour), IdempotencyKey: key}
		must(t, booking.CheckWaitlistEntry(&e, now))
		got, _, err := s.JoinWaitlist(f.ctx, e, now)
		must(t, err)
		if got.Position != 1 {
			t.Fatalf("entry %s of a later period is at position %d, want 1", key, got.Position)
		}
	}

	release(3, func(i int) { _, err := s.Cancel(f.ctx, held[i].ID, holders[i].ID, now); must(t, err) })
	if got := f.getSlot(sl.ID); got.BookedCount != 3 {
		t.Fatalf("released places returned to open booking: booked %d", got.BookedCount)
	}
	rush := f.patients(5)
	for _, p := range rush {
		wantCode(t, f.book(sl.ID, req(p, sl.ID, "rush")).Err, booking.CodeSlotFull)
	}
	due := 0
	for _, n := range h.Inspect(t, s).Notifications(t) {
		if n.Kind == booking.NotifyOfferDue && n.SlotID == sl.ID {
			due++
		}
	}
	if due == 0 {
		t.Fatal("no offer job written in the releasing transactions")
	}
	offers, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(offers) != 3 {
		t.Fatalf("%d offers", len(offers))
	}
	for i, o := range offers {
		if o.PatientID != ps[i].ID || o.Status != booking.StatusHeld {
			t.Fatalf("offer %d went to %d (%s), want patient %d", i, o.PatientID, o.Status, ps[i].ID)
		}
	}
	if more, err := s.MakeOffers(f.ctx, sl.ID, now); err != nil || len(more) != 0 {
		t.Fatalf("a repeated job offered again: %d, %v", len(more), err)
	}
	if e := f.entry(ps[3]); e.Position != 4 {
		t.Fatalf("position %d behind 3 offers", e.Position)
	}
	checkInvariants(t, h, s)
	offerInvariants(t, f, ps)

	// Entry 0 declines: the place passes to entry 3.
	e0, _, err := s.AnswerOffer(f.ctx, booking.OfferAnswer{EntryID: f.entry(ps[0]).ID, PatientID: ps[0].ID}, now)
	must(t, err)
	if e0.State != booking.EntryDeclined {
		t.Fatalf("declined: %s", e0.State)
	}
	next, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(next) != 1 || next[0].PatientID != ps[3].ID {
		t.Fatalf("the declined place went to %+v", next)
	}
	// Entry 1 accepts (no fee: BOOKED).
	e1, a1, err := s.AnswerOffer(f.ctx, booking.OfferAnswer{EntryID: f.entry(ps[1]).ID, PatientID: ps[1].ID, Accept: true}, now)
	must(t, err)
	if e1.State != booking.EntryAccepted || a1.Status != booking.StatusBooked {
		t.Fatalf("accepted: %s %s", e1.State, a1.Status)
	}
	// Patient 4 books elsewhere: leaves the list.
	other := f.slot(1)
	f.mustBook(other.ID, ps[4])
	if e := f.entry(ps[4]); e.State != booking.EntryFulfilled {
		t.Fatalf("booked elsewhere but %s", e.State)
	}

	// Entry 2's and 3's offers time out: passed to 5 and 6 (4 left).
	later := now.Add(16 * time.Minute)
	_, err = s.ExpireHolds(f.ctx, later, 100)
	must(t, err)
	if e := f.entry(ps[2]); e.State != booking.EntryExpired {
		t.Fatalf("timed out but %s", e.State)
	}
	next, err = s.MakeOffers(f.ctx, sl.ID, later)
	must(t, err)
	if len(next) != 2 || next[0].PatientID != ps[5].ID || next[1].PatientID != ps[6].ID {
		t.Fatalf("timed-out places went to %+v", next)
	}

	// Accept racing expiry: exactly one wins.
	deadline := later.Add(booking.DefaultOfferMinutes * time.Minute)
	var acceptErr error
	var expired []booking.Appointment
	release(2, func(i int) {
		if i == 0 {
			_, _, acceptErr = s.AnswerOffer(f.ctx, booking.OfferAnswer{EntryID: f.entry(ps[5]).ID, PatientID: ps[5].ID, Accept: true}, deadline.Add(-time.Second))
		} else {
			var err error
			expired, err = s.ExpireHolds(f.ctx, deadline, 100)
			must(t, err)
		}
	})
	a5, err := s.GetAppointment(f.ctx, next[0].ID)
	must(t, err)
	e5 := f.entry(ps[5])
	switch {
	case acceptErr == nil && a5.Status == booking.StatusBooked && e5.State == booking.EntryAccepted:
	case acceptErr != nil && a5.Status == booking.StatusExpired && e5.State == booking.EntryExpired:
	default:
		t.Fatalf("accept racing expiry: accept err %v, appointment %s, entry %s (expired %d)", acceptErr, a5.Status, e5.State, len(expired))
	}
	checkInvariants(t, h, s)
	offerInvariants(t, f, ps)
	if got := f.getSlot(sl.ID).BookedCount; got != 3 {
		t.Fatalf("booked %d: a place was lost or offered twice", got)
	}
}

// A place released with nobody matching goes back to open booking; a
// capacity raised is offered first; a left entry declines its offer.
func testWaitlistReleaseAndLeave(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1)
	a := f.mustBook(sl.ID, f.patient())
	_, err := s.Cancel(f.ctx, a.ID, a.PatientID, now)
	must(t, err)
	if f.getSlot(sl.ID).BookedCount != 0 {
		t.Fatal("a place nobody waits for was kept")
	}
	f.mustBook(sl.ID, f.patient())
	p := f.patient()
	e := f.join(p, "w")
	c := 2
	_, err = s.UpdateSlot(f.ctx, sl.ID, booking.SlotUpdate{Capacity: &c})
	must(t, err)
	if f.getSlot(sl.ID).BookedCount != 2 {
		t.Fatal("a raised capacity went to open booking before the waitlist")
	}
	offers, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(offers) != 1 || offers[0].PatientID != p.ID {
		t.Fatalf("%+v", offers)
	}
	left, err := s.LeaveWaitlist(f.ctx, e.ID, p.ID, now)
	must(t, err)
	if left.State != booking.EntryCancelled {
		t.Fatalf("left: %s", left.State)
	}
	if o, _ := s.GetAppointment(f.ctx, offers[0].ID); o.Status != booking.StatusCancelled {
		t.Fatalf("the offer of a left entry is %s", o.Status)
	}
	if f.getSlot(sl.ID).BookedCount != 1 {
		t.Fatal("the declined place was not returned")
	}
	_, err = s.LeaveWaitlist(f.ctx, e.ID, f.patient().ID, now)
	wantCode(t, err, booking.CodeNotFound)
	checkInvariants(t, h, s)
}

// Reminders: each offset once (injected clock), none for a cancelled
// appointment, none after the start, a passed offset skipped.
func testReminders(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3, startsAt(now.Add(30*time.Hour)))
	a := f.mustBook(sl.ID, f.patient())
	c := f.mustBook(sl.ID, f.patient())
	_, err := s.Cancel(f.ctx, c.ID, c.PatientID, now)
	must(t, err)
	offsets := booking.DefaultReminders
	scan := func(at time.Time) int {
		n, err := s.SendReminders(f.ctx, offsets, at, 1000)
		must(t, err)
		return n.Sent
	}
	start := sl.StartAt
	for _, step := range []struct {
		at   time.Time
		want int
	}{
		{now, 0}, {start.Add(-24*time.Hour - time.Minute), 0}, {start.Add(-24 * time.Hour), 1}, {start.Add(-23 * time.Hour), 0},
		{start.Add(-2 * time.Hour), 1}, {start.Add(-time.Hour), 0}, {start, 0}, {start.Add(time.Hour), 0},
	} {
		if got := scan(step.at); got != step.want {
			t.Fatalf("scan at start%+v: %d reminders, want %d", step.at.Sub(start), got, step.want)
		}
	}
	var refs []string
	for _, n := range h.Inspect(t, s).Notifications(t) {
		if n.Kind == booking.NotifyReminder {
			if n.AppointmentID != a.ID {
				t.Fatalf("a reminder for appointment %d", n.AppointmentID)
			}
			refs = append(refs, n.Ref)
		}
	}
	if fmt.Sprint(refs) != "[1440m 120m]" {
		t.Fatalf("reminders %v", refs)
	}
	// First seen 1 h before (booked late, or the scans were down): the 2 h
	// reminder is sent, the 24 h one passed, never sent afterwards.
	late := f.slot(1, startsAt(now.Add(40*time.Hour)))
	f.mustBook(late.ID, f.patient())
	first, err := s.SendReminders(f.ctx, offsets, late.StartAt.Add(-time.Hour), 1000)
	must(t, err)
	if first.Sent != 1 || first.Passed != 1 {
		t.Fatalf("late: %+v, want 1 sent and the 24h one passed", first)
	}
	if got := scan(late.StartAt.Add(-30 * time.Minute)); got != 0 {
		t.Fatalf("late, again: %d (the passed 24h one)", got)
	}
	// A schedule's own offsets replace the server's for its slots.
	sc, err := s.CreateSchedule(f.ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 1, OpensAtTime: "07:00", HoldMinutes: 15,
		Reminders: "30m"})
	must(t, err)
	own := f.slot(1, startsAt(now.Add(50*time.Hour)), func(sl *booking.Slot) { sl.ScheduleID = sc.ID })
	f.mustBook(own.ID, f.patient())
	for _, step := range []struct {
		before time.Duration
		want   int
	}{{24 * time.Hour, 0}, {2 * time.Hour, 0}, {30 * time.Minute, 1}, {10 * time.Minute, 0}} {
		if got := scan(own.StartAt.Add(-step.before)); got != step.want {
			t.Fatalf("schedule's own offsets, %v before: %d reminders, want %d", step.before, got, step.want)
		}
	}
}

// A timed-out offer is not reclaimed by an open booking: the rush finds
// the slot full while the offer is OFFERED, and the expiry ends the entry
// EXPIRED and passes the place to the next entry; with nobody left
// waiting the place returns to open booking.
func testStaleOfferNotReclaimed(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1)
	holder := f.patient()
	a := f.mustBook(sl.ID, holder)
	ps := f.patients(2)
	for _, p := range ps {
		f.join(p, "w")
	}
	_, err := s.Cancel(f.ctx, a.ID, holder.ID, now)
	must(t, err)
	offers, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(offers) != 1 || offers[0].PatientID != ps[0].ID {
		t.Fatalf("offers %+v", offers)
	}
	stale := now.Add((booking.DefaultOfferMinutes + 1) * time.Minute)
	rush := f.patients(3)
	for _, p := range rush {
		wantCode(t, f.bookAt(sl.ID, req(p, sl.ID, "rush"), stale).Err, booking.CodeSlotFull)
	}
	if e := f.entry(ps[0]); e.State != booking.EntryOffered {
		t.Fatalf("stale offer's entry: %s", e.State)
	}
	offerInvariants(t, f, ps)
	checkInvariants(t, h, s)

	// The expiry ends the offer: entry 0 EXPIRED, the place kept for entry 1.
	expireOffer(t, f, ps[0], stale)
	if e := f.entry(ps[0]); e.State != booking.EntryExpired {
		t.Fatalf("expired offer's entry: %s", e.State)
	}
	wantCode(t, f.bookAt(sl.ID, req(rush[0], sl.ID, "rush2"), stale).Err, booking.CodeSlotFull)
	next, err := s.MakeOffers(f.ctx, sl.ID, stale)
	must(t, err)
	if len(next) != 1 || next[0].PatientID != ps[1].ID {
		t.Fatalf("the expired offer's place went to %+v", next)
	}
	// Entry 1's offer times out too, and a booking comes before the expiry
	// job: still not reclaimed; after it, nobody waits and the place is open.
	later := stale.Add((booking.DefaultOfferMinutes + 1) * time.Minute)
	wantCode(t, f.bookAt(sl.ID, req(rush[1], sl.ID, "rush3"), later).Err, booking.CodeSlotFull)
	if e := f.entry(ps[1]); e.State != booking.EntryOffered {
		t.Fatalf("second stale offer's entry: %s", e.State)
	}
	expireOffer(t, f, ps[1], later)
	if e := f.entry(ps[1]); e.State != booking.EntryExpired {
		t.Fatalf("second expired offer's entry: %s", e.State)
	}
	if r := f.bookAt(sl.ID, req(rush[2], sl.ID, "rush4"), later); r.Err != nil {
		t.Fatalf("the place did not return to open booking: %v", r.Err)
	}
	offerInvariants(t, f, ps)
	checkInvariants(t, h, s)
}

// expireOffer runs expiry passes at `at` until p's offer has ended: a pass
// skips the holds of a slot whose row is locked (SKIP LOCKED), which the
// transaction of a refused booking may still hold for a moment on
// PostgreSQL; the next pass takes them.
func expireOffer(t *testing.T, f *fixture, p booking.Patient, at time.Time) {
	t.Helper()
	// The callers check the entry's state after it.
	testkit.Poll(30*time.Second, func() bool {
		if f.entry(p).State != booking.EntryOffered {
			return true
		}
		_, err := f.s.ExpireHolds(f.ctx, at, 100)
		must(t, err)
		return f.entry(p).State != booking.EntryOffered
	})
}
