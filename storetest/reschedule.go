package storetest

import (
	"fmt"
	"testing"

	"github.com/slotd/slotd/booking"
)

func reschedule(f *fixture, a booking.Appointment, slotID int64, key string) (booking.RescheduleResult, error) {
	return f.s.Reschedule(f.ctx, booking.RescheduleRequest{AppointmentID: a.ID, PatientID: a.PatientID, SlotID: slotID,
		IdempotencyKey: key, Fingerprint: booking.RescheduleFingerprint(a.ID, slotID)}, now)
}

// A move keeps the appointment (id, state), takes the target's lowest free
// number, moves one place from slot to slot, replays its key, and
// announces itself once.
func testReschedule(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	from, to := f.slot(2), f.slot(3)
	p, q := f.patient(), f.patient()
	a := f.mustBook(from.ID, p)
	b := f.mustBook(to.ID, q) // No. 1 in the target
	res, err := reschedule(f, a, to.ID, "r1")
	must(t, err)
	m := res.Appointment
	if m.ID != a.ID || m.SlotID != to.ID || m.Status != booking.StatusBooked || m.QueueNumber != 2 || !m.StartAt.Equal(to.StartAt) || res.Replayed {
		t.Fatalf("moved %+v", res)
	}
	if f.getSlot(from.ID).BookedCount != 0 || f.getSlot(to.ID).BookedCount != 2 {
		t.Fatal("counters not moved")
	}
	again, err := reschedule(f, a, to.ID, "r1")
	must(t, err)
	if !again.Replayed || again.Appointment.ID != a.ID || again.Appointment.SlotID != to.ID {
		t.Fatalf("replay %+v", again)
	}
	_, err = reschedule(f, a, from.ID, "r1")
	wantCode(t, err, booking.CodeKeyReused)
	// Into its own slot, full, another patient's, not found.
	_, err = reschedule(f, m, to.ID, "r2")
	wantCode(t, err, booking.CodeInvalidRequest)
	_, err = s.Reschedule(f.ctx, booking.RescheduleRequest{AppointmentID: a.ID, PatientID: q.ID, SlotID: from.ID,
		IdempotencyKey: "x", Fingerprint: booking.RescheduleFingerprint(a.ID, from.ID)}, now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = reschedule(f, m, 1<<40, "r3")
	wantCode(t, err, booking.CodeNotFound)
	full := f.slot(1)
	f.mustBook(full.ID, f.patient())
	_, err = reschedule(f, m, full.ID, "r4")
	wantCode(t, err, booking.CodeSlotFull)
	_, err = reschedule(f, m, f.slot(1, closed()).ID, "r5")
	wantCode(t, err, booking.CodeSlotClosed)
	_, err = reschedule(f, m, f.slot(1, opensAt(now.Add(1e12))).ID, "r6")
	wantCode(t, err, booking.CodeNotOpenYet)
	// Cancelled: not active.
	_, err = s.Cancel(f.ctx, b.ID, q.ID, now)
	must(t, err)
	_, err = reschedule(f, b, from.ID, "r7")
	wantCode(t, err, booking.CodeInvalidTransition)
	// Started.
	_, err = s.Reschedule(f.ctx, booking.RescheduleRequest{AppointmentID: a.ID, PatientID: p.ID, SlotID: from.ID,
		IdempotencyKey: "r8", Fingerprint: booking.RescheduleFingerprint(a.ID, from.ID)}, to.StartAt)
	wantCode(t, err, booking.CodeAlreadyStarted)

	moves := 0
	for _, n := range h.Inspect(t, s).Notifications(t) {
		if n.Kind == booking.NotifyRescheduled {
			moves++
			if n.AppointmentID != a.ID {
				t.Fatalf("notification %+v", n)
			}
		}
	}
	if moves != 1 {
		t.Fatalf("%d rescheduled notifications, want 1", moves)
	}
	checkInvariants(t, h, s)
}

// A paid appointment moves only to a slot with the same fee, and keeps its
// state; the patient's own old appointment does not count as an overlap,
// another one does.
func testRescheduleFeeAndOverlap(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	paid := f.slot(1, withFee(500))
	a := wantOK(t, f.book(paid.ID, req(f.patient(), paid.ID, "k")))
	_, err := reschedule(f, a, f.slot(1).ID, "r1")
	wantCode(t, err, booking.CodeFeeDiffers)
	_, err = reschedule(f, a, f.slot(1, withFee(700)).ID, "r2")
	wantCode(t, err, booking.CodeFeeDiffers)
	same := f.slot(1, withFee(500))
	res, err := reschedule(f, a, same.ID, "r3")
	must(t, err)
	if res.Appointment.Status != booking.StatusHeld {
		t.Fatalf("state %s", res.Appointment.Status)
	}

	// Overlap: the target overlaps the old slot (same time, other doctor):
	// allowed. It overlaps another appointment of the patient: refused.
	p := f.patient()
	old := f.slot(1)
	b := f.mustBook(old.ID, p)
	twin := f.slot(1, onDoctor(f.doctor2.ID), startsAt(old.StartAt))
	res, err = reschedule(f, b, twin.ID, "o1")
	must(t, err)
	other := f.slot(1)
	f.mustBook(other.ID, p)
	clash := f.slot(1, onDoctor(f.doctor2.ID), startsAt(other.StartAt))
	_, err = reschedule(f, res.Appointment, clash.ID, "o2")
	wantCode(t, err, booking.CodeOverlapping)
	checkInvariants(t, h, s)
}

// A reschedule racing 50 bookings for the target's last place: exactly one
// of the 51 gets it, the mover keeps exactly one active appointment, and
// both counters are right.
func testRaceRescheduleLastPlace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	from, to := f.slot(1), f.slot(1)
	mover := f.patient()
	a := f.mustBook(from.ID, mover)
	ps := f.patients(50)
	var o outcomes
	var moved bool
	release(51, func(i int) {
		if i == 50 {
			_, err := reschedule(f, a, to.ID, "move")
			moved = err == nil
			if err != nil && booking.ErrorCode(err) != booking.CodeSlotFull {
				o.add(booking.BookResult{Err: err})
			}
			return
		}
		o.add(f.book(to.ID, req(ps[i], to.ID, "k")))
	})
	wins := o.n["ok"]
	if moved {
		wins++
	}
	if wins != 1 || o.n["ok"]+o.n[string(booking.CodeSlotFull)] != 50 {
		t.Fatalf("want exactly one winner of the last place, got %v (moved %v)", o.n, moved)
	}
	active := 0
	for _, x := range h.Inspect(t, s).ActiveAppointments(t) {
		if x.PatientID == mover.ID {
			active++
		}
	}
	wantFrom := 1
	if moved {
		wantFrom = 0
	}
	if active != 1 || f.getSlot(to.ID).BookedCount != 1 || f.getSlot(from.ID).BookedCount != wantFrom {
		t.Fatalf("mover holds %d, counters %d/%d", active, f.getSlot(from.ID).BookedCount, f.getSlot(to.ID).BookedCount)
	}
	checkInvariants(t, h, s)
}

// Two patients rescheduling into each other's full slots at once: the
// slots are locked in id order, so neither waits for the other in a
// cycle; each is refused (full) or moved, and everything stays consistent.
// Then with a free place each, many times over: no deadlock.
func testRaceRescheduleCrossed(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	for round := 0; round < 10; round++ {
		x, y := f.slot(2), f.slot(2)
		a, b := f.mustBook(x.ID, f.patient()), f.mustBook(y.ID, f.patient())
		errs := make([]error, 2)
		release(2, func(i int) {
			if i == 0 {
				_, errs[0] = reschedule(f, a, y.ID, fmt.Sprint("a", round))
			} else {
				_, errs[1] = reschedule(f, b, x.ID, fmt.Sprint("b", round))
			}
		})
		for _, err := range errs {
			must(t, err)
		}
		if f.getSlot(x.ID).BookedCount != 1 || f.getSlot(y.ID).BookedCount != 1 {
			t.Fatal("crossed moves left wrong counters")
		}
	}
	checkInvariants(t, h, s)
}
