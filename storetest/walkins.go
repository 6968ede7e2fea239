package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

func walkIn(p booking.Patient, slotID int64, key string) booking.WalkInRequest {
	return booking.WalkInRequest{SlotID: slotID, PatientID: p.ID, Reason: "came to the desk", Key: key}
}

// testWalkIns: a walk-in is added to a full slot on its day only, up to
// the policy's number, marked and counted; every refusal changes nothing;
// a retry answers the same; a cancelled walk-in never reopens a place to
// booking beyond the capacity; reconciliation counts walk-ins apart and
// stays clean; the waitlist is offered nothing of a slot over capacity.
func testWalkIns(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	at := sl.StartAt // the slot's day, before it ends
	a, b := f.mustBook(sl.ID, f.patient()), f.mustBook(sl.ID, f.patient())
	w1, w2, w3, w4 := f.patient(), f.patient(), f.patient(), f.patient()

	// The refusals, each changing nothing.
	notFull := f.slot(2)
	_, _, err := s.WalkIn(f.ctx, walkIn(w1, notFull.ID, "nf"), notFull.StartAt)
	wantCode(t, err, booking.CodeSlotNotFull)
	_, _, err = s.WalkIn(f.ctx, walkIn(w1, sl.ID, "early"), at.Add(-24*time.Hour))
	wantCode(t, err, booking.CodeWalkInNotToday)
	_, _, err = s.WalkIn(f.ctx, walkIn(w1, sl.ID, "late"), sl.EndAt)
	wantCode(t, err, booking.CodeSlotClosed)
	_, _, err = s.WalkIn(f.ctx, walkIn(booking.Patient{ID: 999999}, sl.ID, "ghost"), at)
	wantCode(t, err, booking.CodeNotFound)
	_, _, err = s.WalkIn(f.ctx, walkIn(w1, 999999, "no-slot"), at)
	wantCode(t, err, booking.CodeNotFound)
	_, _, err = s.WalkIn(f.ctx, booking.WalkInRequest{SlotID: sl.ID, PatientID: a.PatientID, Reason: "again", Key: "twice"}, at)
	wantCode(t, err, booking.CodeAlreadyBooked)
	if got := f.getSlot(sl.ID); got.BookedCount != 2 {
		t.Fatalf("refused walk-ins changed the slot: %+v", got)
	}

	// The first walk-in: one place beyond the capacity, marked, audited.
	wa, replay, err := s.WalkIn(f.ctx, walkIn(w1, sl.ID, "w1"), at)
	must(t, err)
	if replay || !wa.WalkIn || wa.WalkInReason != "came to the desk" || wa.Status != booking.StatusBooked || wa.QueueNumber != 3 {
		t.Fatalf("walk-in = %+v replay %v", wa, replay)
	}
	if got, _ := s.GetAppointment(f.ctx, wa.ID); !got.WalkIn || got.WalkInReason != wa.WalkInReason {
		t.Fatalf("the walk-in read back: %+v", got)
	}
	if es := auditOf(t, s, booking.EntityAppointment, wa.ID); len(es) != 1 || es[0].Action != booking.AuditWalkIn {
		t.Fatalf("the walk-in's audit: %+v", es)
	}
	again, replay, err := s.WalkIn(f.ctx, walkIn(w1, sl.ID, "w1"), at.Add(time.Minute))
	must(t, err)
	if !replay || again.ID != wa.ID {
		t.Fatalf("the retry = %+v replay %v", again, replay)
	}
	_, _, err = s.WalkIn(f.ctx, walkIn(w1, notFull.ID, "w1"), at)
	wantCode(t, err, booking.CodeKeyReused)
	if got := f.getSlot(sl.ID); got.BookedCount != 3 {
		t.Fatalf("after one walk-in: %+v", got)
	}

	// A cancelled walk-in leaves the slot full for booking.
	_, err = s.Cancel(f.ctx, wa.ID, 0, now)
	must(t, err)
	if r := f.bookAt(sl.ID, req(f.patient(), sl.ID, "after-cancel"), now); booking.ErrorCode(r.Err) != booking.CodeSlotFull {
		t.Fatalf("a booking after the walk-in's cancel: %+v", r)
	}
	// Two active walk-ins, the policy's default; a third is refused.
	_, _, err = s.WalkIn(f.ctx, walkIn(w2, sl.ID, "w2"), at)
	must(t, err)
	_, _, err = s.WalkIn(f.ctx, walkIn(w3, sl.ID, "w3"), at)
	must(t, err)
	_, _, err = s.WalkIn(f.ctx, walkIn(w4, sl.ID, "w4"), at)
	wantCode(t, err, booking.CodeWalkInLimit)

	// A normal place given back in a slot over capacity: still full, and
	// nothing reserved for the waitlist.
	_, _, err = s.JoinWaitlist(f.ctx, booking.WaitlistEntry{PatientID: w4.ID, DoctorID: f.doctor.ID, From: now,
		To: sl.EndAt.Add(time.Hour), PartOfDay: booking.PartAny, IdempotencyKey: "wait"}, now)
	must(t, err)
	_, err = s.Cancel(f.ctx, a.ID, 0, now)
	must(t, err)
	offers, err := s.MakeOffers(f.ctx, sl.ID, now)
	must(t, err)
	if len(offers) != 0 {
		t.Fatalf("a slot over capacity offered %+v", offers)
	}
	if r := f.bookAt(sl.ID, req(f.patient(), sl.ID, "over"), now); booking.ErrorCode(r.Err) != booking.CodeSlotFull {
		t.Fatalf("a booking in a slot over capacity: %+v", r)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 3 {
		t.Fatalf("b and two walk-ins: %+v", got)
	}
	_ = b

	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() || rep.WalkIns != 2 {
		t.Fatalf("reconciliation: %+v", rep)
	}
	checkInvariants(t, h, s)

	// Walk-ins off: refused.
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	pol.WalkInsPerSlot = 0
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	full := f.slot(1)
	f.mustBook(full.ID, f.patient())
	_, _, err = s.WalkIn(f.ctx, walkIn(w4, full.ID, "off"), full.StartAt)
	wantCode(t, err, booking.CodeWalkInLimit)
}

// testWalkInService: the Service adds walk-ins for the front desk only, with
// a reason of bounded length, and refuses the rest before the store.
func testWalkInService(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1)
	p := f.mustBook(sl.ID, f.patient())
	w := f.patient()
	svc := service.NewService(s, service.Options{Now: func() time.Time { return sl.StartAt }})
	ctx := context.Background()
	desk := booking.Actor{Role: booking.RoleReception, ID: "staff:rita"}
	for _, c := range []struct {
		who    booking.Actor
		reason string
		code   booking.Code
	}{
		{booking.Actor{Role: booking.RolePatient, ID: fmt.Sprint(w.ID)}, "mine", booking.CodeForbidden},
		{booking.Actor{Role: booking.RoleDoctor, ID: fmt.Sprint(f.doctor.ID)}, "mine", booking.CodeForbidden},
		{desk, "", booking.CodeInvalidRequest},
		{desk, "   ", booking.CodeInvalidRequest},
		{desk, strings.Repeat("é", booking.MaxWalkInReason+1), booking.CodeInvalidRequest},
	} {
		_, _, err := svc.WalkIn(ctx, c.who, booking.WalkInRequest{SlotID: sl.ID, PatientID: w.ID, Reason: c.reason, Key: "k"})
		wantCode(t, err, c.code)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 1 {
		t.Fatalf("refused walk-ins changed the slot: %+v (%+v)", got, p)
	}
	a, _, err := svc.WalkIn(ctx, desk, booking.WalkInRequest{SlotID: sl.ID, PatientID: w.ID, Reason: "  " + strings.Repeat("é", booking.MaxWalkInReason) + " ", Key: "k"})
	must(t, err)
	if !a.WalkIn || a.WalkInReason != strings.Repeat("é", booking.MaxWalkInReason) {
		t.Fatalf("the desk's walk-in: %+v", a)
	}
	if es := auditOf(t, s, booking.EntityAppointment, a.ID); len(es) != 1 || es[0].ActorRole != booking.RoleReception {
		t.Fatalf("the walk-in's audit: %+v", es)
	}
}

// testRaceWalkIns: on a full slot, walk-ins, bookings and cancels all at
// once never take more than capacity + policy places, never more walk-ins
// than the policy, and leave reconciliation clean.
func testRaceWalkIns(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	const capacity, walkers, bookers, cancels = 4, 24, 24, 2
	sl := f.slot(capacity)
	var booked []booking.Appointment
	for range capacity {
		booked = append(booked, f.mustBook(sl.ID, f.patient()))
	}
	ws, bs := f.patients(walkers), f.patients(bookers)
	var added, refusedOK atomic.Int64
	release(walkers+bookers+cancels, func(i int) {
		switch {
		case i < walkers:
			_, _, err := s.WalkIn(f.ctx, walkIn(ws[i], sl.ID, "race"), sl.StartAt)
			switch booking.ErrorCode(err) {
			case "":
				added.Add(1)
			case booking.CodeWalkInLimit, booking.CodeSlotNotFull:
				refusedOK.Add(1)
			default:
				t.Errorf("walk-in %d: %v", i, err)
			}
		case i < walkers+bookers:
			r := f.bookAt(sl.ID, req(bs[i-walkers], sl.ID, "race"), now)
			if r.Err != nil && booking.ErrorCode(r.Err) != booking.CodeSlotFull {
				t.Errorf("booking %d: %v", i, r.Err)
			}
		default:
			_, err := s.Cancel(f.ctx, booked[i-walkers-bookers].ID, 0, now)
			must(t, err)
		}
	})
	if added.Load() > booking.DefaultWalkInsPerSlot || added.Load()+refusedOK.Load() != walkers {
		t.Fatalf("%d walk-ins added, %d refused, of %d", added.Load(), refusedOK.Load(), walkers)
	}
	got := f.getSlot(sl.ID)
	if got.BookedCount > capacity+booking.DefaultWalkInsPerSlot {
		t.Fatalf("%d places taken in a slot of %d with %d walk-ins allowed", got.BookedCount, capacity, booking.DefaultWalkInsPerSlot)
	}
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() || int64(rep.WalkIns) != added.Load() {
		t.Fatalf("reconciliation after the race (%d walk-ins): %+v", added.Load(), rep)
	}
	checkInvariants(t, h, s)
}

// testWalkInAfterCancel: a walk-in lines up after the last number taken,
// above the slot's limit when a booked place was cancelled since the first
// walk-in (the allowance does not grow: the cancel made room), and the
// invariants hold (the race of walk-ins and cancels found this order).
func testWalkInAfterCancel(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	first, _ := f.mustBook(sl.ID, f.patient()), f.mustBook(sl.ID, f.patient())
	a, _, err := s.WalkIn(f.ctx, walkIn(f.patient(), sl.ID, "first"), sl.StartAt)
	must(t, err)
	_, err = s.Cancel(f.ctx, first.ID, 0, now)
	must(t, err)
	b, _, err := s.WalkIn(f.ctx, walkIn(f.patient(), sl.ID, "second"), sl.StartAt)
	must(t, err)
	if a.QueueNumber != 3 || b.QueueNumber != 4 {
		t.Fatalf("walk-ins numbered %d and %d, want 3 and 4", a.QueueNumber, b.QueueNumber)
	}
	if got := f.getSlot(sl.ID); got.BookedCount != 3 {
		t.Fatalf("%d places taken, want 3 (one booked, two walk-ins)", got.BookedCount)
	}
	checkInvariants(t, h, s)
}
