package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testVisitReschedule: a visit moves all its places in one decision: over
// its own run it keeps the places it holds, takes the new ones and gives
// the others back; elsewhere it takes a whole new run; a retry replays;
// each refusal changes nothing; a cancel after the move releases exactly
// the new places.
func testVisitReschedule(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Consultation", 45, f.doctor.ID)
	sls := f.run(7, 1, 15*time.Minute)
	p, q := f.patient(), f.patient()
	res := f.visit(visitReq(p, v, sls[0].ID, "v"))
	must(t, res.Err)
	a := res.Appointment

	// One slot later: keeps 1 and 2, takes 3, gives 0 back.
	m, err := reschedule(f, a, sls[1].ID, "m1")
	must(t, err)
	if m.Appointment.ID != a.ID || m.Appointment.SlotID != sls[1].ID || !m.Appointment.StartAt.Equal(sls[1].StartAt) ||
		!m.Appointment.EndAt.Equal(sls[3].EndAt) || m.Appointment.ServiceID != v.ID || fmt.Sprint(m.Released) != fmt.Sprint([]int64{sls[0].ID}) {
		t.Fatalf("moved %+v", m)
	}
	wantCounters(t, f.counters(sls), 0, 1, 1, 1, 0, 0, 0)
	reconciled(t, s)
	if r, err := reschedule(f, a, sls[1].ID, "m1"); err != nil || !r.Replayed {
		t.Fatalf("retry: %+v, %v", r, err)
	}
	// Nobody else gets the new further slot; the old first one is free.
	wantCode(t, f.book(sls[3].ID, req(q, sls[3].ID, "q1")).Err, booking.CodeSlotFull)
	wantCode(t, f.book(sls[0].ID, req(q, sls[0].ID, "q2")).Err, "")

	// Refusals, each changing nothing: the run too short, a slot of the
	// new run full (named), another doctor who does not offer it.
	wantCode(t, errOf(reschedule(f, a, sls[5].ID, "r1")), booking.CodeServiceNotOffered)
	f.mustBook(sls[6].ID, q)
	_, err = reschedule(f, a, sls[4].ID, "r2")
	wantCode(t, err, booking.CodeSlotFull)
	if e, _ := err.(*booking.Error); e == nil || e.SlotID != sls[6].ID {
		t.Fatalf("refusal names %+v, want slot %d", err, sls[6].ID)
	}
	other := f.slot(1, onDoctor(f.doctor2.ID), lasting(45*time.Minute))
	wantCode(t, errOf(reschedule(f, a, other.ID, "r3")), booking.CodeServiceNotOffered)
	wantCounters(t, f.counters(sls), 1, 1, 1, 1, 0, 0, 1)
	checkInvariants(t, h, s)
	reconciled(t, s)

	// To a run of its own: all three places move.
	far := f.run(3, 1, 15*time.Minute)
	m, err = reschedule(f, a, far[0].ID, "m2")
	must(t, err)
	if !m.Appointment.EndAt.Equal(far[2].EndAt) || len(m.Released) != 3 {
		t.Fatalf("moved away %+v", m)
	}
	wantCounters(t, f.counters(sls), 1, 0, 0, 0, 0, 0, 1)
	wantCounters(t, f.counters(far), 1, 1, 1)
	reconciled(t, s)
	// A cancel after the moves gives back exactly the places it holds now.
	_, err = s.Cancel(f.ctx, a.ID, p.ID, now)
	must(t, err)
	wantCounters(t, f.counters(far), 0, 0, 0)
	wantCounters(t, f.counters(sls), 1, 0, 0, 0, 0, 0, 1)
	checkInvariants(t, h, s)
	reconciled(t, s)
}

// testRaceVisitReschedule: a visit moving into a run while 30 patients
// book that run's single slots, all released at once, many rounds over;
// and two visits moving into each other's runs at once. Nobody overlaps,
// no slot is oversold, no move deadlocks, every counter reconciles.
func testRaceVisitReschedule(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Consultation", 30, f.doctor.ID)
	for round := 0; round < 5; round++ {
		from, to := f.run(2, 1, 15*time.Minute), f.run(2, 1, 15*time.Minute)
		a := f.visit(visitReq(f.patient(), v, from[0].ID, fmt.Sprint("v", round))).Appointment
		ps := f.patients(30)
		var o outcomes
		var moved bool
		release(31, func(i int) {
			if i == 30 {
				_, err := reschedule(f, a, to[0].ID, fmt.Sprint("m", round))
				moved = err == nil
				if err != nil && booking.ErrorCode(err) != booking.CodeSlotFull {
					o.add(booking.BookResult{Err: err})
				}
				return
			}
			sl := to[i%2]
			o.add(f.book(sl.ID, req(ps[i], sl.ID, "k")))
		})
		if o.n["ok"]+o.n[string(booking.CodeSlotFull)] != 30 {
			t.Fatalf("round %d: unexpected answers %v", round, o.n)
		}
		wantFrom := []int{1, 1}
		if moved {
			wantFrom = []int{0, 0}
			if o.n["ok"] != 0 {
				t.Fatalf("round %d: the visit moved and %d bookings won its places too", round, o.n["ok"])
			}
		} else if o.n["ok"] == 0 {
			t.Fatalf("round %d: neither the move nor a booking won", round)
		}
		wantCounters(t, f.counters(from), wantFrom...)
		wantCounters(t, f.counters(to), 1, 1)
	}
	// Crossed: each visit moves into the other's run (capacity 2).
	for round := 0; round < 5; round++ {
		x, y := f.run(2, 2, 15*time.Minute), f.run(2, 2, 15*time.Minute)
		a := f.visit(visitReq(f.patient(), v, x[0].ID, fmt.Sprint("x", round))).Appointment
		b := f.visit(visitReq(f.patient(), v, y[0].ID, fmt.Sprint("y", round))).Appointment
		errs := make([]error, 2)
		release(2, func(i int) {
			if i == 0 {
				_, errs[0] = reschedule(f, a, y[0].ID, fmt.Sprint("a", round))
			} else {
				_, errs[1] = reschedule(f, b, x[0].ID, fmt.Sprint("b", round))
			}
		})
		for _, err := range errs {
			must(t, err)
		}
		wantCounters(t, f.counters(x), 1, 1)
		wantCounters(t, f.counters(y), 1, 1)
	}
	checkInvariants(t, h, s)
	reconciled(t, s)
}

func errOf(_ booking.RescheduleResult, err error) error { return err }
