package storetest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testRaceQueueRush: a morning's rush at one doctor: check-ins (by staff
// and by code, each sent twice), consoles calling, starting and
// completing, all released at once. Nobody is called twice, the call
// numbers run 1..n, only ARRIVED patients are called, one call at most
// is current, every status change in every audit trail is a step of the
// transition table and follows the one before, and reconciliation is
// clean.
func testRaceQueueRush(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	pol.QueueSkipCalls = booking.MaxQueueSkipCalls // a passed patient does not come back within the rush
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	const people, consoles = 20, 14
	sl := f.slot(people)
	r := f.queueDay(f.doctor, sl)
	at := sl.StartAt.Add(-10 * time.Minute)
	ps := f.patients(people)
	as := make([]booking.Appointment, people)
	for i, p := range ps {
		as[i] = f.mustBook(sl.ID, p)
	}
	var mu sync.Mutex
	called := map[int64]int{}
	passed := map[int64]int{} // a called person not started goes back as skipped
	seqs := map[int]int{}
	var fails []error
	var late []int64 // checked in after a console had seen them through
	var completed, empty int
	fail := func(err error) {
		mu.Lock()
		fails = append(fails, err)
		mu.Unlock()
	}
	release(2*people+consoles, func(i int) {
		if i < 2*people { // each check-in twice: a retry, or staff and kiosk at once
			a := as[i%people]
			req := booking.CheckInRequest{AppointmentID: a.ID, Codes: checkInCodes}
			if i%3 == 0 {
				req = checkInAs(a.PatientID, a, checkInCodes.Display(a.ID))
			}
			_, _, err := s.CheckIn(f.ctx, req, at)
			switch {
			case booking.ErrorCode(err) == booking.CodeInvalidTransition:
				mu.Lock() // the other check-in, a call and a completion came first
				late = append(late, a.ID)
				mu.Unlock()
			case err != nil:
				fail(err)
			}
			return
		}
		c, _, err := s.CallNext(f.ctx, r, at)
		if booking.ErrorCode(err) == booking.CodeQueueEmpty {
			mu.Lock()
			empty++ // called before anyone arrived: allowed, changes nothing
			mu.Unlock()
			return
		}
		if err != nil {
			fail(err)
			return
		}
		mu.Lock()
		called[c.Next.AppointmentID]++
		if c.Passed != nil {
			passed[c.Passed.AppointmentID]++
		}
		seqs[c.Seq]++
		mu.Unlock()
		if i%2 == 0 { // this console sees its patient through
			_, err := s.StepQueue(f.ctx, booking.QueueStep{AppointmentID: c.Next.AppointmentID, Action: booking.QueueActionStart}, at)
			if err == nil {
				_, err = s.Transition(f.ctx, c.Next.AppointmentID, booking.StatusCompleted, sl.StartAt.Add(time.Minute))
			}
			switch {
			case err == nil:
				mu.Lock()
				completed++
				mu.Unlock()
			case booking.ErrorCode(err) != booking.CodeNotCalled: // another console's call may have passed it
				fail(err)
			}
		}
	})
	if len(fails) != 0 {
		t.Fatalf("%d operations failed: %v", len(fails), fails)
	}
	for _, id := range late {
		if a, err := s.GetAppointment(f.ctx, id); err != nil || a.Status != booking.StatusCompleted {
			t.Fatalf("a check-in of appointment %d refused as invalid-transition, which is %s (%v), not COMPLETED", id, a.Status, err)
		}
	}
	t.Logf("%d calls, %d on an empty queue, %d seen through to COMPLETED", len(called), empty, completed)
	for id, n := range called {
		if n != 1+passed[id] && n != passed[id] { // called again only after a pass
			t.Fatalf("appointment %d called %d times, passed %d", id, n, passed[id])
		}
	}
	for seq := 1; seq <= len(seqs); seq++ {
		if seqs[seq] != 1 {
			t.Fatalf("call numbers %v: want 1..%d once each", seqs, len(seqs))
		}
	}
	d, err := s.QueueDay(f.ctx, r)
	must(t, err)
	current := 0
	for _, e := range d.Entries {
		if e.Status == booking.StatusArrived && e.Step == booking.QueueCalled {
			current++
		}
	}
	if d.Calls != len(seqs) || current > 1 {
		t.Fatalf("the day: %d calls (%d answered), %d current", d.Calls, len(seqs), current)
	}
	for _, a := range as {
		got, err := s.GetAppointment(f.ctx, a.ID)
		must(t, err)
		if got.Status != booking.StatusArrived && got.Status != booking.StatusCompleted {
			t.Errorf("appointment %d is %s after checking in", a.ID, got.Status)
		}
		if called[a.ID] == 0 && got.Status == booking.StatusCompleted {
			t.Errorf("appointment %d completed without a call", a.ID)
		}
		checkAuditChain(t, s, got)
	}
	rep, err := s.Reconcile(f.ctx, at.Add(time.Hour), false)
	must(t, err)
	if !rep.Clean() {
		t.Fatalf("reconciliation: %+v", rep)
	}
	checkInvariants(t, h, s)
}

// checkAuditChain replays a's audit trail, oldest first: each entry's
// status before is the status the one before left, each change of status
// is in the transition table, and the last is a's status now.
func checkAuditChain(t *testing.T, s booking.Store, a booking.Appointment) {
	t.Helper()
	es := auditOf(t, s, booking.EntityAppointment, a.ID)
	status := func(js string) booking.Status {
		var v struct {
			Status booking.Status `json:"status"`
		}
		if js != "" {
			_ = json.Unmarshal([]byte(js), &v)
		}
		return v.Status
	}
	var cur booking.Status
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		before, after := status(e.Before), status(e.After)
		switch {
		case after == "":
			continue // not a state of the appointment
		case cur == "":
		case before != cur:
			t.Fatalf("appointment %d: %s starts from %s, but it was %s", a.ID, e.Action, before, cur)
		case before != after && !booking.CanTransition(before, after):
			t.Fatalf("appointment %d: %s went %s → %s, not in the transition table", a.ID, e.Action, before, after)
		}
		cur = after
	}
	if cur != a.Status {
		t.Fatalf("appointment %d: the audit trail ends at %s, the appointment is %s", a.ID, cur, a.Status)
	}
}
