package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// eventOutbox is the domain events' relay cursor both stores keep over
// their audit log (package events relays it).
type eventOutbox interface {
	StartEvents(ctx context.Context) error
	RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error)
	EventBacklog(ctx context.Context) (int64, error)
}

// eventsOn starts s's relay cursor, as the store's Events option does at
// Open, so that the suite can tell the changes before from those after,
// and returns s as the relay sees it.
func eventsOn(t *testing.T, s booking.Store) eventOutbox {
	t.Helper()
	o, ok := s.(eventOutbox)
	if !ok {
		t.Fatalf("%T keeps no event outbox", s)
	}
	must(t, o.StartEvents(context.Background()))
	return o
}

// testEvents: every state change is an event, the audit entry its own
// transaction writes, each appointment's in order, and the cursor moves
// past the confirmed prefix only; a change before the relay started is
// not published.
func testEvents(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	p, q := f.patient(), f.patient()
	f.mustBook(f.slot(2).ID, q) // before the relay started: not published
	o := eventsOn(t, s)
	held := wantOK(t, f.book(f.slot(2, withFee(500)).ID, req(p, 0, "held")))
	_, err := s.ConfirmPayment(f.ctx, pay(held.ID, "T-ev", 500), now.Add(time.Minute))
	must(t, err)
	_, err = s.Cancel(f.ctx, held.ID, p.ID, now.Add(2*time.Minute))
	must(t, err)
	b := f.mustBook(f.slot(2).ID, q)
	// Completed once it has started.
	_, err = s.Transition(f.ctx, b.ID, booking.StatusCompleted, b.StartAt.Add(time.Minute))
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

// testEventsOfMovesAndOffers: a reschedule, a waiting-list offer and its
// decline are domain events too, in the transactions that make them; an
// offer job (no change of an appointment) is none.
func testEventsOfMovesAndOffers(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o := eventsOn(t, s)
	from, to := f.slot(1), f.slot(1)
	p, q := f.patient(), f.patient()
	a := f.mustBook(from.ID, p)
	_, err := reschedule(f, a, to.ID, "ev-r")
	must(t, err)
	f.join(q, "ev-w")
	_, err = s.Cancel(f.ctx, a.ID, p.ID, now)
	must(t, err)
	offers, err := s.MakeOffers(f.ctx, to.ID, now)
	must(t, err)
	if len(offers) != 1 {
		t.Fatalf("%d offers, want 1", len(offers))
	}
	_, _, err = s.AnswerOffer(f.ctx, booking.OfferAnswer{EntryID: f.entry(q).ID, PatientID: q.ID}, now)
	must(t, err)
	var got []booking.Event
	_, err = o.RelayEvents(f.ctx, 100, func(evs []booking.Event) (int, error) { got = evs; return len(evs), nil })
	must(t, err)
	want := []struct {
		typ  string
		appt int64
		slot int64
	}{
		{booking.EventBooked, a.ID, from.ID}, {booking.EventRescheduled, a.ID, to.ID},
		{booking.EventCancelled, a.ID, to.ID}, {booking.EventOfferMade, offers[0].ID, to.ID},
		{booking.EventCancelled, offers[0].ID, to.ID},
	}
	if len(got) != len(want) {
		t.Fatalf("events %+v, want %d", got, len(want))
	}
	for i, e := range got {
		if e.Type != want[i].typ || e.AppointmentID != want[i].appt || e.SlotID != want[i].slot {
			t.Fatalf("event %d = %+v, want %s of appointment %d in slot %d", i, e, want[i].typ, want[i].appt, want[i].slot)
		}
	}
	if got[3].HoldExpiresAt == nil || got[3].Status != booking.StatusHeld || got[3].PatientID != q.ID {
		t.Fatalf("the offer's event %+v: want HELD for patient %d with its deadline", got[3], q.ID)
	}
}

// testEventsOfASuspension: a suspension's cancellations are one
// slotd.slot.suspended event per appointment it cancelled, naming it.
func testEventsOfASuspension(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	day := now.Add(10 * 24 * time.Hour)
	in1, in2 := f.slot(2, startsAt(day)), f.slot(2, startsAt(day.Add(time.Hour)))
	p := f.patient()
	a1, a2 := f.mustBook(in1.ID, p), f.mustBook(in2.ID, p)
	o := eventsOn(t, s)
	r, err := s.Suspend(f.ctx, booking.Suspension{DoctorID: f.doctor.ID, From: day, To: day.Add(2 * time.Hour), Reason: "conference"}, now)
	must(t, err)
	var got []booking.Event
	_, err = o.RelayEvents(f.ctx, 100, func(evs []booking.Event) (int, error) { got = evs; return len(evs), nil })
	must(t, err)
	if len(got) != 2 {
		t.Fatalf("events %+v, want one per cancelled appointment", got)
	}
	for i, a := range []booking.Appointment{a1, a2} {
		e := got[i]
		if e.Type != booking.EventSlotSuspended || e.AppointmentID != a.ID || e.SuspensionID != r.Suspension.ID ||
			e.Status != booking.StatusCancelled || e.PatientID != p.ID {
			t.Fatalf("event %d = %+v, want %s of appointment %d by suspension %d", i, e, booking.EventSlotSuspended, a.ID, r.Suspension.ID)
		}
	}
}
