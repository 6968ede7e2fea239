package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// eventOutbox is the domain events' outbox both stores keep (package
// events relays it).
type eventOutbox interface {
	SetEvents(on bool)
	RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error)
	EventBacklog(ctx context.Context) (int64, error)
}

// testEvents: every state change writes its event in its own transaction,
// each appointment's in order, and only a confirmed prefix leaves the
// outbox; a change while the outbox is off writes none.
func testEvents(t *testing.T, h Harness) {
	s := h.New(t)
	o, ok := s.(eventOutbox)
	if !ok {
		t.Fatalf("%T keeps no event outbox", s)
	}
	f := newFixture(t, s)
	p, q := f.patient(), f.patient()
	f.mustBook(f.slot(2).ID, q) // outbox off: no event
	o.SetEvents(true)
	held := wantOK(t, f.book(f.slot(2, withFee(500)).ID, req(p, 0, "held")))
	_, err := s.ConfirmPayment(f.ctx, pay(held.ID, "T-ev", 500), now.Add(time.Minute))
	must(t, err)
	_, err = s.Cancel(f.ctx, held.ID, p.ID, now.Add(2*time.Minute))
	must(t, err)
	b := f.mustBook(f.slot(2).ID, q)
	_, err = s.Transition(f.ctx, b.ID, booking.StatusCompleted, now.Add(3*time.Minute))
	must(t, err)

	want := []struct {
		typ  string
		appt int64
	}{
		{booking.EventHeld, held.ID}, {booking.EventBooked, held.ID}, {booking.EventCancelled, held.ID},
		{booking.EventBooked, b.ID}, {booking.EventCompleted, b.ID},
	}
	if n, err := o.EventBacklog(f.ctx); err != nil || n != int64(len(want)) {
		t.Fatalf("backlog %d (%v), want %d", n, err, len(want))
	}
	// A publisher that confirms only the first event: the rest stays.
	var first []booking.Event
	n, err := o.RelayEvents(f.ctx, 100, func(evs []booking.Event) (int, error) { first = evs; return 1, nil })
	must(t, err)
	if n != 1 || len(first) != len(want) {
		t.Fatalf("relayed %d of %d events", n, len(first))
	}
	var rest []booking.Event
	_, err = o.RelayEvents(f.ctx, 100, func(evs []booking.Event) (int, error) { rest = evs; return len(evs), nil })
	must(t, err)
	if len(rest) != len(want)-1 || rest[0].ID != first[1].ID {
		t.Fatalf("after a confirmed prefix of 1 the relay sees %+v", rest)
	}
	for i, e := range first {
		// Only a HELD place has a deadline the receiver must show.
		held := e.Type == booking.EventHeld || e.Type == booking.EventOfferMade
		if e.Type != want[i].typ || e.AppointmentID != want[i].appt || (i > 0 && e.ID <= first[i-1].ID) || e.Time.IsZero() || e.PatientID == 0 ||
			held != (e.HoldExpiresAt != nil) {
			t.Fatalf("event %d = %+v, want %s of %d", i, e, want[i].typ, want[i].appt)
		}
	}
	if n, _ := o.EventBacklog(f.ctx); n != 0 {
		t.Fatalf("backlog %d after everything was confirmed", n)
	}
}
