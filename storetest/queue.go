package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// queueDay is the fixture doctor's day of slot sl.
func (f *fixture) queueDay(doctor booking.Doctor, sl booking.Slot) booking.QueueRange {
	f.t.Helper()
	loc, err := doctor.Location()
	must(f.t, err)
	y, m, d := sl.StartAt.In(loc).Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, loc)
	return booking.QueueRange{DoctorID: doctor.ID, Day: booking.QueueDayOf(from, loc), From: from, To: from.AddDate(0, 0, 1)}
}

// arrive books a place of sl for p and checks it in at.
func (f *fixture) arrive(sl booking.Slot, p booking.Patient, at time.Time) booking.Appointment {
	f.t.Helper()
	a := f.mustBook(sl.ID, p)
	a, _, err := f.s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: a.ID, Codes: checkInCodes}, at)
	must(f.t, err)
	return a
}

func queueActions(t *testing.T, s booking.Store, id int64) []string {
	t.Helper()
	var out []string
	for _, e := range auditOf(t, s, booking.EntityAppointment, id) {
		switch e.Action {
		case booking.AuditQueueCall, booking.AuditQueueRecall, booking.AuditQueueSkip, booking.AuditQueueStart:
			out = append([]string{e.Action}, out...) // oldest first
		}
	}
	return out
}

// testQueue: a morning at one doctor's console. Calls take the ARRIVED
// by number (not the BOOKED, not another doctor's), a recall rings the
// same, a skip comes back after the policy's calls, start and the staff's
// COMPLETED end it; every refusal changes nothing; each step audited.
func testQueue(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	if pol.QueueSkipCalls != booking.DefaultQueueSkipCalls {
		t.Fatalf("default skip re-entry %d", pol.QueueSkipCalls)
	}
	pol.QueueSkipCalls = 1
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	sl := f.slot(5)
	r := f.queueDay(f.doctor, sl)
	at := sl.StartAt.Add(-30 * time.Minute)

	_, _, err = s.CallNext(f.ctx, r, at)
	wantCode(t, err, booking.CodeQueueEmpty)

	ps := f.patients(5)
	a1 := f.mustBook(sl.ID, ps[0]) // No. 1, checks in last
	a2 := f.arrive(sl, ps[1], at.Add(-3*time.Minute))
	a3 := f.arrive(sl, ps[2], at.Add(-2*time.Minute))
	booked := f.mustBook(sl.ID, ps[3]) // never checks in
	other := f.arrive(f.slot(1, onDoctor(f.doctor2.ID), startsAt(sl.StartAt)), ps[4], at)
	a1, _, err = s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: a1.ID, Codes: checkInCodes}, at.Add(-time.Minute))
	must(t, err)

	call := func(want booking.Appointment, seq int) {
		t.Helper()
		c, d, err := s.CallNext(f.ctx, r, at)
		must(t, err)
		if c.Next.AppointmentID != want.ID || c.Seq != seq || c.Next.Step != booking.QueueCalled || d.Calls != seq {
			t.Fatalf("call %d: %+v (day %d calls), want appointment %d", seq, c.Next, d.Calls, want.ID)
		}
	}
	step := func(a booking.Appointment, action string, doctor int64) (booking.QueueEntry, error) {
		return s.StepQueue(f.ctx, booking.QueueStep{AppointmentID: a.ID, DoctorID: doctor, Action: action}, at)
	}

	call(a1, 1)
	// Refusals: a waiting patient, the BOOKED one, another doctor's, an
	// unknown appointment; none changes anything.
	for _, a := range []booking.Appointment{a2, booked, other} {
		_, err := step(a, booking.QueueActionStart, 0)
		wantCode(t, err, booking.CodeNotCalled)
	}
	_, err = step(a1, booking.QueueActionRecall, f.doctor2.ID)
	wantCode(t, err, booking.CodeNotFound)
	_, err = step(booking.Appointment{ID: 999999}, booking.QueueActionRecall, 0)
	wantCode(t, err, booking.CodeNotFound)

	e, err := step(a1, booking.QueueActionRecall, f.doctor.ID)
	must(t, err)
	if e.Step != booking.QueueCalled || e.Calls != 2 {
		t.Fatalf("recall: %+v", e)
	}
	e, err = step(a1, booking.QueueActionSkip, 0)
	must(t, err)
	if e.Step != booking.QueueSkipped {
		t.Fatalf("skip: %+v", e)
	}
	_, err = step(a1, booking.QueueActionSkip, 0)
	wantCode(t, err, booking.CodeNotCalled)

	call(a2, 2) // the skipped No. 1 waits one call (the policy's 1)
	_, err = step(a2, booking.QueueActionStart, 0)
	must(t, err)
	call(a1, 3) // back after one call
	_, err = step(a1, booking.QueueActionStart, 0)
	must(t, err)
	call(a3, 4)
	_, err = s.Transition(f.ctx, a3.ID, booking.StatusCompleted, sl.StartAt.Add(time.Minute))
	must(t, err)
	// Two in consultation, the third completed: nobody waits.
	_, _, err = s.CallNext(f.ctx, r, at)
	wantCode(t, err, booking.CodeQueueEmpty)

	d, err := s.QueueDay(f.ctx, r)
	must(t, err)
	steps := map[int64]string{}
	for _, e := range d.Entries {
		steps[e.AppointmentID] = e.Step
	}
	if d.Calls != 4 || len(d.Entries) != 3 || steps[a1.ID] != booking.QueueStarted || steps[a2.ID] != booking.QueueStarted || steps[a3.ID] != booking.QueueCalled {
		t.Fatalf("day: %d calls, %+v", d.Calls, steps)
	}
	if _, ok := d.Current(); ok {
		t.Fatal("a completed call is not current")
	}
	for id, want := range map[int64][]string{
		a1.ID:     {booking.AuditQueueCall, booking.AuditQueueRecall, booking.AuditQueueSkip, booking.AuditQueueCall, booking.AuditQueueStart},
		a2.ID:     {booking.AuditQueueCall, booking.AuditQueueStart},
		a3.ID:     {booking.AuditQueueCall},
		booked.ID: nil, other.ID: nil,
	} {
		if got := queueActions(t, s, id); len(got) != len(want) || (len(want) > 0 && got[len(got)-1] != want[len(want)-1]) {
			t.Errorf("appointment %d: audit %v, want %v", id, got, want)
		}
	}
	for _, a := range []booking.Appointment{a1, a2} {
		if got, _ := s.GetAppointment(f.ctx, a.ID); got.Status != booking.StatusArrived {
			t.Errorf("appointment %d is %s: a queue step never changes the status", a.ID, got.Status)
		}
	}
	pol.QueueSkipCalls = booking.MaxQueueSkipCalls + 1
	_, err = s.SetClinicPolicy(f.ctx, pol)
	wantCode(t, err, booking.CodeInvalidRequest)
	rep, err := s.Reconcile(f.ctx, at, false)
	must(t, err)
	if !rep.Clean() {
		t.Fatalf("reconciliation: %+v", rep)
	}
	checkInvariants(t, h, s)
}

// testRaceQueueCall: many consoles call one doctor's queue at once. Each
// call takes someone else, the call numbers are 1..n, one is current and
// the others were passed; no status changed; reconciliation clean.
func testRaceQueueCall(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	pol.QueueSkipCalls = booking.MaxQueueSkipCalls // a passed patient does not come back within the race
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	sl := f.slot(24)
	r := f.queueDay(f.doctor, sl)
	at := sl.StartAt.Add(-10 * time.Minute)
	arrivedIDs := map[int64]bool{}
	for _, p := range f.patients(20) {
		arrivedIDs[f.arrive(sl, p, at.Add(-time.Minute)).ID] = true
	}
	const consoles = 16
	var mu sync.Mutex
	called := map[int64]int{}
	seqs := map[int]bool{}
	var fails []error
	release(consoles, func(int) {
		c, _, err := s.CallNext(f.ctx, r, at)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			fails = append(fails, err)
			return
		}
		called[c.Next.AppointmentID]++
		seqs[c.Seq] = true
	})
	if len(fails) != 0 {
		t.Fatalf("%d calls failed: %v", len(fails), fails)
	}
	for id, n := range called {
		if n != 1 || !arrivedIDs[id] {
			t.Fatalf("appointment %d called %d times (arrived %v)", id, n, arrivedIDs[id])
		}
	}
	if len(called) != consoles || len(seqs) != consoles || !seqs[1] || !seqs[consoles] {
		t.Fatalf("%d called, call numbers %v; want %d distinct, 1..%d", len(called), seqs, consoles, consoles)
	}
	d, err := s.QueueDay(f.ctx, r)
	must(t, err)
	count := map[string]int{}
	for _, e := range d.Entries {
		if e.Status != booking.StatusArrived {
			t.Errorf("appointment %d is %s after the calls", e.AppointmentID, e.Status)
		}
		count[e.Step]++
	}
	if d.Calls != consoles || count[booking.QueueCalled] != 1 || count[booking.QueueSkipped] != consoles-1 || count[booking.QueueWaiting] != 20-consoles {
		t.Fatalf("after the race: %d calls, steps %v", d.Calls, count)
	}
	calls := 0
	for id := range arrivedIDs {
		for _, a := range queueActions(t, s, id) {
			if a == booking.AuditQueueCall {
				calls++
			}
		}
	}
	if calls != consoles {
		t.Fatalf("%d call audit entries, want %d", calls, consoles)
	}
	rep, err := s.Reconcile(f.ctx, at, false)
	must(t, err)
	if !rep.Clean() {
		t.Fatalf("reconciliation: %+v", rep)
	}
	checkInvariants(t, h, s)
}
