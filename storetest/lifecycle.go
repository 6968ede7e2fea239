package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// notifications counts the committed notifications of a kind for an appointment.
func notifications(t testing.TB, h Harness, s booking.Store, kind booking.NotificationKind, apptID int64) int {
	t.Helper()
	n := 0
	for _, x := range h.Inspect(t, s).Notifications(t) {
		if x.Kind == kind && x.AppointmentID == apptID {
			n++
		}
	}
	return n
}

func testNotificationsOnBookAndCancel(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	p := f.patient()
	a := f.mustBook(f.slot(2).ID, p)
	if n := notifications(t, h, s, booking.NotifyConfirmation, a.ID); n != 1 {
		t.Fatalf("%d confirmations for a BOOKED appointment, want 1", n)
	}
	held := wantOK(t, f.book(f.slot(2, withFee(100)).ID, req(p, 0, "held")))
	if n := notifications(t, h, s, booking.NotifyConfirmation, held.ID); n != 0 {
		t.Fatalf("a HELD appointment is confirmed only when paid, got %d confirmations", n)
	}
	f.book(a.SlotID, req(p, a.SlotID, fmt.Sprintf("k-%d-%d", p.ID, a.SlotID))) // a replay announces nothing new
	if n := notifications(t, h, s, booking.NotifyConfirmation, a.ID); n != 1 {
		t.Fatalf("a replay enqueued another confirmation: %d", n)
	}
	for range 2 {
		_, err := s.Cancel(f.ctx, a.ID, p.ID, now)
		must(t, err)
	}
	if n := notifications(t, h, s, booking.NotifyCancellation, a.ID); n != 1 {
		t.Fatalf("%d cancellation notices after cancelling twice, want 1", n)
	}
}

func pay(id int64, trade string, amount int64) booking.Payment {
	return booking.Payment{TradeNo: trade, AppointmentID: id, AmountCents: amount}
}

func testPayments(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3, withFee(2500))
	p := f.patient()
	a := wantOK(t, f.book(sl.ID, req(p, sl.ID, "a")))

	r, err := s.ConfirmPayment(f.ctx, pay(a.ID, "T1", 2500), now.Add(time.Minute))
	must(t, err)
	if r.Duplicate || r.Appointment.Status != booking.StatusBooked || r.Payment.Outcome != booking.PaymentApplied {
		t.Fatalf("payment = %+v", r)
	}
	if n := notifications(t, h, s, booking.NotifyConfirmation, a.ID); n != 1 {
		t.Fatalf("%d confirmations after payment", n)
	}
	// The provider repeats its callback: nothing changes.
	r, err = s.ConfirmPayment(f.ctx, pay(a.ID, "T1", 2500), now.Add(2*time.Minute))
	must(t, err)
	if !r.Duplicate || r.Appointment.Status != booking.StatusBooked || r.Payment.Outcome != booking.PaymentApplied {
		t.Fatalf("duplicate callback = %+v", r)
	}
	// A second payment for a paid appointment must be refunded.
	r, err = s.ConfirmPayment(f.ctx, pay(a.ID, "T2", 2500), now.Add(2*time.Minute))
	wantCode(t, err, booking.CodePaymentRejected)
	if r.Payment.Outcome != booking.PaymentRefund {
		t.Fatalf("second payment = %+v", r)
	}
	if f.getSlot(sl.ID).BookedCount != 1 || notifications(t, h, s, booking.NotifyConfirmation, a.ID) != 1 {
		t.Fatal("a duplicate or second payment changed something")
	}

	// A wrong amount is not applied.
	b := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "b")))
	_, err = s.ConfirmPayment(f.ctx, pay(b.ID, "T3", 100), now)
	wantCode(t, err, booking.CodePaymentRejected)
	if got, _ := s.GetAppointment(f.ctx, b.ID); got.Status != booking.StatusHeld {
		t.Fatalf("a wrong amount changed the appointment: %s", got.Status)
	}

	// Paid after the deadline: the hold expires, the place is released, the
	// payment is flagged for refund.
	c := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "c")))
	_, err = s.ConfirmPayment(f.ctx, pay(c.ID, "T4", 2500), c.HoldExpiresAt.Add(time.Second))
	wantCode(t, err, booking.CodePaymentRejected)
	got, err := s.GetAppointment(f.ctx, c.ID)
	must(t, err)
	if got.Status != booking.StatusExpired {
		t.Fatalf("late payment: appointment %s, want EXPIRED", got.Status)
	}
	if n := notifications(t, h, s, booking.NotifyExpiry, c.ID); n != 1 {
		t.Fatalf("%d expiry notices", n)
	}

	// Paid after a cancel.
	_, err = s.Cancel(f.ctx, b.ID, 0, now)
	must(t, err)
	_, err = s.ConfirmPayment(f.ctx, pay(b.ID, "T5", 2500), now)
	wantCode(t, err, booking.CodePaymentRejected)

	_, err = s.ConfirmPayment(f.ctx, pay(999999, "T6", 2500), now)
	wantCode(t, err, booking.CodeNotFound)

	if got := f.getSlot(sl.ID).BookedCount; got != 1 {
		t.Fatalf("booked_count = %d, want 1 (only the paid one)", got)
	}
	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	refunds := map[string]bool{}
	for _, p := range rep.RefundsNeeded {
		refunds[p.TradeNo] = true
	}
	if len(rep.RefundsNeeded) != 4 || !refunds["T2"] || !refunds["T3"] || !refunds["T4"] || !refunds["T5"] {
		t.Fatalf("refunds needed = %+v, want T2 T3 T4 T5", rep.RefundsNeeded)
	}
	checkInvariants(t, h, s)
}

func testExpireHolds(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(5, withFee(100))
	var as []booking.Appointment
	for i := range 4 {
		// Holds made a minute apart expire a minute apart.
		as = append(as, wantOK(t, f.bookAt(sl.ID, req(f.patient(), sl.ID, "h"), now.Add(time.Duration(i)*time.Minute))))
	}
	at := as[2].HoldExpiresAt.Add(time.Second) // the first three have expired
	got, err := s.ExpireHolds(f.ctx, at, 2)
	must(t, err)
	if len(got) != 2 || got[0].ID != as[0].ID || got[1].ID != as[1].ID || got[0].Status != booking.StatusExpired {
		t.Fatalf("first pass expired %+v, want the two oldest", got)
	}
	got, err = s.ExpireHolds(f.ctx, at, 2)
	must(t, err)
	if len(got) != 1 || got[0].ID != as[2].ID {
		t.Fatalf("second pass expired %+v, want the third", got)
	}
	got, err = s.ExpireHolds(f.ctx, at, 2)
	must(t, err)
	if got == nil || len(got) != 0 {
		t.Fatalf("third pass expired %#v, want an empty list", got)
	}
	// A pass with no room (limit 0 or less) expires nothing and answers an
	// empty list, as a pass that finds nothing does, on every store.
	for _, limit := range []int{0, -1} {
		got, err = s.ExpireHolds(f.ctx, as[3].HoldExpiresAt.Add(time.Second), limit)
		must(t, err)
		if got == nil || len(got) != 0 {
			t.Fatalf("limit %d expired %#v, want an empty list", limit, got)
		}
	}
	if a, err := s.GetAppointment(f.ctx, as[3].ID); err != nil || a.Status != booking.StatusHeld {
		t.Fatalf("a pass with limit 0 changed the fourth hold: %s (%v)", a.Status, err)
	}
	if n := f.getSlot(sl.ID).BookedCount; n != 1 {
		t.Fatalf("booked_count = %d, want 1", n)
	}
	for _, a := range as[:3] {
		if notifications(t, h, s, booking.NotifyExpiry, a.ID) != 1 {
			t.Fatalf("appointment %d: want one expiry notice", a.ID)
		}
	}
	checkInvariants(t, h, s)
}

// Expiry and payment race for the same hold: exactly one wins.
func testExpiryRacesPayment(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	wins := map[string]int{}
	for round := range 25 {
		sl := f.slot(1, withFee(300))
		a := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "r")))
		deadline := *a.HoldExpiresAt
		var payErr error
		var expired []booking.Appointment
		var expErr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, payErr = s.ConfirmPayment(f.ctx, pay(a.ID, fmt.Sprint("race-", round), 300), deadline.Add(-time.Millisecond))
		}()
		go func() {
			defer wg.Done()
			<-start
			expired, expErr = s.ExpireHolds(f.ctx, deadline.Add(time.Millisecond), 100)
		}()
		close(start)
		wg.Wait()
		must(t, expErr)
		final, err := s.GetAppointment(f.ctx, a.ID)
		must(t, err)
		switch {
		case payErr == nil && len(expired) == 0 && final.Status == booking.StatusBooked:
			wins["payment"]++
			if f.getSlot(sl.ID).BookedCount != 1 {
				t.Fatalf("round %d: paid but the place was released", round)
			}
		case booking.ErrorCode(payErr) == booking.CodePaymentRejected && len(expired) == 1 && final.Status == booking.StatusExpired:
			wins["expiry"]++
			if f.getSlot(sl.ID).BookedCount != 0 {
				t.Fatalf("round %d: expired but the place was kept", round)
			}
		default:
			t.Fatalf("round %d: payment err=%v, expired=%d, final=%s: not exactly one winner", round, payErr, len(expired), final.Status)
		}
	}
	t.Logf("winners over 25 rounds: %v", wins)
	checkInvariants(t, h, s)
}

// A booking that finds its slot full first reclaims the slot's expired holds.
func testReclaimWhenFull(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1, withFee(100))
	a := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "first")))
	wantCode(t, f.book(sl.ID, req(f.patient(), sl.ID, "early")).Err, booking.CodeSlotFull)
	late := a.HoldExpiresAt.Add(time.Second)
	b := wantOK(t, f.bookAt(sl.ID, req(f.patient(), sl.ID, "late"), late))
	if b.QueueNumber != 1 {
		t.Fatalf("the reclaimed place has number %d, want 1", b.QueueNumber)
	}
	got, err := s.GetAppointment(f.ctx, a.ID)
	must(t, err)
	if got.Status != booking.StatusExpired || notifications(t, h, s, booking.NotifyExpiry, a.ID) != 1 {
		t.Fatalf("reclaimed hold: %s, expiry notices %d", got.Status, notifications(t, h, s, booking.NotifyExpiry, a.ID))
	}
	checkInvariants(t, h, s)
}

func testTransitions(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3)
	a := f.mustBook(sl.ID, f.patient())
	b := f.mustBook(sl.ID, f.patient())
	// Before the start nothing happened at the appointment yet.
	_, err := s.Transition(f.ctx, a.ID, booking.StatusNoShow, now)
	wantCode(t, err, booking.CodeNotStarted)
	started := sl.StartAt
	c, err := s.Transition(f.ctx, a.ID, booking.StatusCompleted, started)
	must(t, err)
	if c.Status != booking.StatusCompleted {
		t.Fatalf("complete = %+v", c)
	}
	again, err := s.Transition(f.ctx, a.ID, booking.StatusCompleted, started)
	must(t, err)
	if again.Status != booking.StatusCompleted || !again.UpdatedAt.Equal(c.UpdatedAt) {
		t.Fatalf("repeated complete changed it: %+v", again)
	}
	_, err = s.Transition(f.ctx, a.ID, booking.StatusNoShow, started)
	wantCode(t, err, booking.CodeInvalidTransition)
	ns, err := s.Transition(f.ctx, b.ID, booking.StatusNoShow, started)
	must(t, err)
	if ns.Status != booking.StatusNoShow {
		t.Fatalf("no-show = %+v", ns)
	}
	held := wantOK(t, f.book(f.slot(1, withFee(100)).ID, req(f.patient(), 0, "h")))
	_, err = s.Transition(f.ctx, held.ID, booking.StatusCompleted, started)
	wantCode(t, err, booking.CodeInvalidTransition)
	_, err = s.Transition(f.ctx, 999999, booking.StatusCompleted, started)
	wantCode(t, err, booking.CodeNotFound)
	if got := f.getSlot(sl.ID).BookedCount; got != 0 {
		t.Fatalf("booked_count = %d after complete and no-show, want 0", got)
	}
	checkInvariants(t, h, s)
}

func testSuspend(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	day := now.Add(10 * 24 * time.Hour)
	in1 := f.slot(2, startsAt(day))
	in2 := f.slot(2, startsAt(day.Add(time.Hour)), withFee(100))
	out := f.slot(2, startsAt(day.Add(5*time.Hour)))
	other := f.slot(2, startsAt(day), onDoctor(f.doctor2.ID))
	p, q := f.patient(), f.patient()
	a1 := f.mustBook(in1.ID, p)
	a2 := wantOK(t, f.book(in2.ID, req(p, in2.ID, "held"))) // HELD
	b1 := f.mustBook(in1.ID, q)
	keep := f.mustBook(out.ID, q)
	f.mustBook(other.ID, f.patient())

	sus := booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day.Add(2 * time.Hour), Reason: "conference"}
	r, err := s.Suspend(f.ctx, sus, now)
	must(t, err)
	if r.Existing || r.SlotsClosed != 2 || r.Cancelled != 3 || r.PatientsTold != 2 || r.Suspension.ID == 0 {
		t.Fatalf("suspend = %+v", r)
	}
	for _, id := range []int64{a1.ID, a2.ID, b1.ID} {
		a, err := s.GetAppointment(f.ctx, id)
		must(t, err)
		if a.Status != booking.StatusCancelled {
			t.Fatalf("appointment %d is %s after suspension", id, a.Status)
		}
	}
	if k, _ := s.GetAppointment(f.ctx, keep.ID); k.Status != booking.StatusBooked {
		t.Fatal("an appointment outside the period was touched")
	}
	for _, sl := range []booking.Slot{in1, in2} {
		g := f.getSlot(sl.ID)
		if g.Status != booking.SlotClosed || g.BookedCount != 0 {
			t.Fatalf("slot %d after suspension: %+v", sl.ID, g)
		}
	}
	if g := f.getSlot(other.ID); g.Status != booking.SlotOpen || g.BookedCount != 1 {
		t.Fatal("another doctor's slot was touched")
	}
	// One notice per patient, not per appointment.
	told := map[int64]int{}
	for _, n := range h.Inspect(t, s).Notifications(t) {
		if n.Kind == booking.NotifySuspension {
			if n.SuspensionID != r.Suspension.ID {
				t.Fatalf("suspension notice without its suspension: %+v", n)
			}
			a, err := s.GetAppointment(f.ctx, n.AppointmentID)
			must(t, err)
			told[a.PatientID]++
		}
	}
	if len(told) != 2 || told[p.ID] != 1 || told[q.ID] != 1 {
		t.Fatalf("suspension notices per patient: %v", told)
	}
	wantCode(t, f.book(in1.ID, req(f.patient(), in1.ID, "x")).Err, booking.CodeSlotClosed)

	// Repeating it changes nothing.
	again, err := s.Suspend(f.ctx, sus, now.Add(time.Minute))
	must(t, err)
	if !again.Existing || again.Suspension.ID != r.Suspension.ID || again.Cancelled != 0 {
		t.Fatalf("repeat = %+v", again)
	}
	got, err := s.GetSuspension(f.ctx, r.Suspension.ID)
	must(t, err)
	if got.Reason != "conference" || !got.From.Equal(day) || got.DoctorID != f.doctor.ID {
		t.Fatalf("GetSuspension = %+v", got)
	}
	_, err = s.Suspend(f.ctx, booking.Suspension{DoctorID: 999999, From: day, To: day.Add(time.Hour), Reason: "x"}, now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.Suspend(f.ctx, booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day, Reason: "x"}, now)
	wantCode(t, err, booking.CodeInvalidRequest)
	checkInvariants(t, h, s)
}

// A suspension cancelling an offer (a HELD appointment of a waitlist
// entry) ends the entry as booking.Released says, as an expiry or a cancel
// does, instead of leaving it OFFERED with no live offer; the closed slot
// keeps no place for the entries still waiting.
func testSuspendEndsOffers(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	day := now.Add(10 * 24 * time.Hour)
	sl := f.slot(1, startsAt(day))
	outside := f.slot(1, startsAt(day.Add(5*time.Hour)))
	ps := f.patients(2)
	for _, p := range ps {
		f.join(p, "w")
	}
	// Both slots' places go to the waitlist: sl's to ps[0], outside's to ps[1].
	for _, x := range []booking.Slot{sl, outside} {
		a := f.mustBook(x.ID, f.patient())
		_, err := s.Cancel(f.ctx, a.ID, a.PatientID, now)
		must(t, err)
		offers, err := s.MakeOffers(f.ctx, x.ID, now)
		must(t, err)
		if len(offers) != 1 || offers[0].Status != booking.StatusHeld {
			t.Fatalf("slot %d: offers %+v", x.ID, offers)
		}
	}
	offered, kept := f.entry(ps[0]), f.entry(ps[1])
	if offered.State != booking.EntryOffered || offered.SlotID != sl.ID || kept.State != booking.EntryOffered || kept.SlotID != outside.ID {
		t.Fatalf("before the suspension: %+v, %+v", offered, kept)
	}

	r, err := s.Suspend(f.ctx, booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day.Add(time.Hour), Reason: "conference"}, now)
	must(t, err)
	if r.Cancelled != 1 || r.SlotsClosed != 1 {
		t.Fatalf("suspend = %+v", r)
	}
	if a, err := s.GetAppointment(f.ctx, offered.AppointmentID); err != nil || a.Status != booking.StatusCancelled {
		t.Fatalf("the suspended offer is %s (%v)", a.Status, err)
	}
	if e := f.entry(ps[0]); e.State != booking.ReleasedEntryState(booking.StatusCancelled) {
		t.Fatalf("the suspended offer's entry is %s, want %s", e.State, booking.ReleasedEntryState(booking.StatusCancelled))
	}
	if e := f.entry(ps[1]); e.State != booking.EntryOffered || e.AppointmentID != kept.AppointmentID {
		t.Fatalf("an offer outside the period was touched: %+v", e)
	}
	if g := f.getSlot(sl.ID); g.Status != booking.SlotClosed || g.BookedCount != 0 {
		t.Fatalf("the suspended slot: %+v", g)
	}
	if more, err := s.MakeOffers(f.ctx, sl.ID, now); err != nil || len(more) != 0 {
		t.Fatalf("the closed slot offered %+v (%v)", more, err)
	}
	offerInvariants(t, f, ps)
	checkInvariants(t, h, s)
}

func testReconcile(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	a := f.slot(3)
	b := f.slot(2)
	f.mustBook(a.ID, f.patient())
	f.mustBook(a.ID, f.patient())
	f.mustBook(b.ID, f.patient())
	held := wantOK(t, f.book(f.slot(1, withFee(100)).ID, req(f.patient(), 0, "h")))

	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() || len(rep.Repaired) != 0 {
		t.Fatalf("a consistent store reported %+v", rep)
	}
	ins := h.Inspect(t, s)
	ins.SetBookedCount(t, a.ID, 0)
	ins.SetBookedCount(t, b.ID, 2)
	rep, err = s.Reconcile(f.ctx, held.HoldExpiresAt.Add(time.Second), false)
	must(t, err)
	if rep.Sound() || len(rep.CounterMismatches) != 2 || len(rep.StaleHolds) != 1 || rep.StaleHolds[0].ID != held.ID {
		t.Fatalf("corrupted counters: report %+v", rep)
	}
	if len(Violations(t, ins)) == 0 {
		t.Fatal("the invariant checker missed the corruption too")
	}
	rep, err = s.Reconcile(f.ctx, now, true)
	must(t, err)
	if len(rep.Repaired) != 2 {
		t.Fatalf("repair = %+v", rep.Repaired)
	}
	for _, r := range rep.Repaired {
		switch r.SlotID {
		case a.ID:
			if r.From != 0 || r.To != 2 {
				t.Fatalf("slot a repaired %+v", r)
			}
		case b.ID:
			if r.From != 2 || r.To != 1 {
				t.Fatalf("slot b repaired %+v", r)
			}
		default:
			t.Fatalf("repaired an unrelated slot %+v", r)
		}
	}
	rep, err = s.Reconcile(f.ctx, now, false)
	must(t, err)
	if !rep.Sound() {
		t.Fatalf("after repair: %+v", rep)
	}
	checkInvariants(t, h, s)
}
