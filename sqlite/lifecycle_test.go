package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// The enqueuer runs inside the state change's transaction: its failure
// undoes the change.
func TestEnqueuerFailureRollsBack(t *testing.T) {
	f := newFx(t)
	sl := f.slot(2)
	p := f.patient()
	ok := f.book(sl.ID, rq(p, sl.ID, "before"))[0].Appointment
	boom := errors.New("outbox down")
	var seen []booking.Notification
	f.s.enqueue = func(_ context.Context, tx *sql.Tx, ns []booking.Notification) error {
		if tx == nil {
			t.Error("enqueuer called without a transaction")
		}
		seen = append(seen, ns...)
		return boom
	}
	if _, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(f.patient(), sl.ID, "k")}, testNow); !errors.Is(err, boom) {
		t.Fatalf("Book with a failing enqueuer: %v", err)
	}
	if _, err := f.s.Cancel(f.ctx, ok.ID, p, testNow); !errors.Is(err, boom) {
		t.Fatalf("Cancel with a failing enqueuer: %v", err)
	}
	if len(seen) != 2 || seen[0].Kind != booking.NotifyConfirmation || seen[1] != (booking.Notification{Kind: booking.NotifyCancellation, AppointmentID: ok.ID}) {
		t.Fatalf("enqueuer saw %+v", seen)
	}
	got, err := f.s.GetSlot(f.ctx, sl.ID)
	f.must(err)
	a, err := f.s.GetAppointment(f.ctx, ok.ID)
	f.must(err)
	if got.BookedCount != 1 || a.Status != booking.StatusBooked {
		t.Fatalf("after failed enqueues: booked_count %d, appointment %s", got.BookedCount, a.Status)
	}
	// Nothing to announce (a HELD booking, a repeated cancel): not called.
	seen = nil
	held := f.slot(1, func(s *booking.Slot) { s.FeeCents = 100 })
	if r := f.book(held.ID, rq(f.patient(), held.ID, "h"))[0]; r.Err != nil {
		t.Fatal(r.Err)
	}
	if len(seen) != 0 {
		t.Fatalf("enqueuer called for a HELD booking: %+v", seen)
	}
	f.s.enqueue = nil
	f.book(sl.ID, rq(f.patient(), sl.ID, "after"))
	f.checkInvariants()
}

// A closed store is unavailable (503), not an internal error.
func TestClosedStoreUnavailable(t *testing.T) {
	f := newFx(t)
	sl := f.slot(1)
	p := f.patient()
	f.must(f.s.Close())
	if _, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(p, sl.ID, "k")}, testNow); !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("Book on a closed store: %v", err)
	}
	if _, err := f.s.GetSlot(f.ctx, sl.ID); booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("GetSlot on a closed store: %v", err)
	}
	if err := f.s.Ping(f.ctx); booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("Ping on a closed store: %v", err)
	}
}

// A suspension cancels started appointments too and reports the slots it
// covered; a doctor without slots in the period is suspended with nothing
// to cancel and nobody to tell.
func TestSuspendEmptyPeriod(t *testing.T) {
	f := newFx(t)
	from := testNow.Add(100 * 24 * time.Hour)
	r, err := f.s.Suspend(f.ctx, booking.Suspension{DoctorID: f.other.ID, From: from, To: from.Add(time.Hour), Reason: "r"}, testNow)
	f.must(err)
	if r.Existing || r.SlotsClosed != 0 || r.Cancelled != 0 || r.PatientsTold != 0 || r.Suspension.ID == 0 {
		t.Fatalf("suspend = %+v", r)
	}
	if _, err := f.s.GetSuspension(f.ctx, 999999); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("missing suspension: %v", err)
	}
}
