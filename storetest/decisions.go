package storetest

import (
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testHolderOfFullSlot: in a full slot, the patient who holds
// a place and asks again under a new key is told already-booked, the more
// specific truth, not slot-full; alone and in a batch with others who are
// told slot-full.
func testHolderOfFullSlot(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	ps := f.patients(3)
	f.mustBook(sl.ID, ps[0])
	f.mustBook(sl.ID, ps[1])

	res := f.book(sl.ID, req(ps[0], sl.ID, "again"))
	wantCode(t, res.Err, booking.CodeAlreadyBooked)
	if e := errorsAs(res.Err); e == nil || e.SlotID != sl.ID {
		t.Fatalf("already-booked should name the slot: %#v", res.Err)
	}

	out, err := s.Book(f.ctx, sl.ID, []booking.BookRequest{
		req(ps[2], sl.ID, "late"), req(ps[1], sl.ID, "again"), req(ps[0], sl.ID, "again-2"),
	}, now)
	must(t, err)
	wantCode(t, out[0].Err, booking.CodeSlotFull)
	wantCode(t, out[1].Err, booking.CodeAlreadyBooked)
	wantCode(t, out[2].Err, booking.CodeAlreadyBooked)
	if got := f.getSlot(sl.ID).BookedCount; got != 2 {
		t.Fatalf("booked_count = %d, want 2", got)
	}
	checkInvariants(t, h, s)
}

// testPaymentConflict: a callback that reuses a recorded trade
// number is a duplicate only when it is the same payment. With another
// appointment or another amount it is refused with payment-conflict,
// changes nothing, and is listed once by reconciliation.
func testPaymentConflict(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3, withFee(2500))
	a := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "a")))
	b := wantOK(t, f.book(sl.ID, req(f.patient(), sl.ID, "b")))

	r, err := s.ConfirmPayment(f.ctx, pay(a.ID, "T1", 2500), now.Add(time.Minute))
	must(t, err)
	if r.Appointment.Status != booking.StatusBooked {
		t.Fatalf("payment = %+v", r)
	}
	// The same payment again: a duplicate, answered as recorded.
	r, err = s.ConfirmPayment(f.ctx, pay(a.ID, "T1", 2500), now.Add(2*time.Minute))
	must(t, err)
	if !r.Duplicate || r.Payment.AppointmentID != a.ID || r.Payment.Outcome != booking.PaymentApplied {
		t.Fatalf("same payment replayed = %+v", r)
	}

	// The trade number for another appointment: not b's payment.
	_, err = s.ConfirmPayment(f.ctx, pay(b.ID, "T1", 2500), now.Add(3*time.Minute))
	wantCode(t, err, booking.CodePaymentConflict)
	// For another amount, twice (the provider retries): recorded once.
	for range 2 {
		_, err = s.ConfirmPayment(f.ctx, pay(a.ID, "T1", 9900), now.Add(4*time.Minute))
		wantCode(t, err, booking.CodePaymentConflict)
	}
	// For an appointment that does not exist: a conflict still, not 404.
	_, err = s.ConfirmPayment(f.ctx, pay(999999, "T1", 2500), now.Add(5*time.Minute))
	wantCode(t, err, booking.CodePaymentConflict)

	got, err := s.GetAppointment(f.ctx, b.ID)
	must(t, err)
	if got.Status != booking.StatusHeld {
		t.Fatalf("a conflicting callback changed appointment b: %s", got.Status)
	}
	if n := notifications(t, h, s, booking.NotifyConfirmation, b.ID); n != 0 {
		t.Fatalf("%d confirmations for b", n)
	}
	if got := f.getSlot(sl.ID).BookedCount; got != 2 {
		t.Fatalf("booked_count = %d, want 2", got)
	}

	rep, err := s.Reconcile(f.ctx, now, false)
	must(t, err)
	want := []booking.PaymentConflict{
		{TradeNo: "T1", AppointmentID: b.ID, AmountCents: 2500},
		{TradeNo: "T1", AppointmentID: a.ID, AmountCents: 9900},
		{TradeNo: "T1", AppointmentID: 999999, AmountCents: 2500},
	}
	if len(rep.PaymentConflicts) != len(want) {
		t.Fatalf("payment conflicts = %+v, want %+v", rep.PaymentConflicts, want)
	}
	for i, c := range rep.PaymentConflicts {
		w := want[i]
		if c.TradeNo != w.TradeNo || c.AppointmentID != w.AppointmentID || c.AmountCents != w.AmountCents || c.ReceivedAt.IsZero() {
			t.Fatalf("conflict %d = %+v, want %+v", i, c, w)
		}
	}
	if !rep.Sound() || len(rep.RefundsNeeded) != 0 {
		t.Fatalf("conflicts are work to do, not breaches or refunds: %+v", rep)
	}
	checkInvariants(t, h, s)
}

// testUnknownPatientInBatch: a request for a patient that does not exist is
// not found; the batch's other requests are decided as if it were absent.
func testUnknownPatientInBatch(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	p := f.patient()
	out, err := s.Book(f.ctx, sl.ID, []booking.BookRequest{
		req(booking.Patient{ID: 424242}, sl.ID, "ghost"), req(p, sl.ID, "real"),
	}, now)
	must(t, err)
	wantCode(t, out[0].Err, booking.CodeNotFound)
	if a := wantOK(t, out[1]); a.QueueNumber != 1 {
		t.Fatalf("queue number %d, want 1", a.QueueNumber)
	}
	checkInvariants(t, h, s)
}

// testReclaimedHold: when a batch reclaims a slot's stale holds, a replay of
// one is answered as it now is (EXPIRED, as read back), and its patient,
// who no longer holds a place, may book again under a new key.
func testReclaimedHold(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1, withFee(100))
	a, b := f.patient(), f.patient()
	held := wantOK(t, f.book(sl.ID, req(a, sl.ID, "ka")))
	late := held.HoldExpiresAt.Add(time.Second)
	out, err := s.Book(f.ctx, sl.ID, []booking.BookRequest{req(a, sl.ID, "ka"), req(a, sl.ID, "ka-2"), req(b, sl.ID, "kb")}, late)
	must(t, err)
	if !out[0].Replayed || out[0].Appointment.Status != booking.StatusExpired || !out[0].Appointment.UpdatedAt.Equal(late) {
		t.Fatalf("replay of the reclaimed hold: %+v", out[0])
	}
	if again := wantOK(t, out[1]); again.QueueNumber != 1 {
		t.Fatalf("the reclaimed place has number %d, want 1", again.QueueNumber)
	}
	wantCode(t, out[2].Err, booking.CodeSlotFull)
	got, err := s.GetAppointment(f.ctx, held.ID)
	must(t, err)
	ans := out[0].Appointment
	if got.HoldExpiresAt == nil || ans.HoldExpiresAt == nil || !got.HoldExpiresAt.Equal(*ans.HoldExpiresAt) {
		t.Fatalf("hold deadline read back %v, answered %v", got.HoldExpiresAt, ans.HoldExpiresAt)
	}
	got.HoldExpiresAt, ans.HoldExpiresAt = nil, nil // compared above; the pointers differ
	if got != ans {
		t.Fatalf("read back %+v, answered %+v", got, ans)
	}
	if n := notifications(t, h, s, booking.NotifyExpiry, held.ID); n != 1 {
		t.Fatalf("%d expiry notices for the reclaimed hold", n)
	}
	checkInvariants(t, h, s)
}
