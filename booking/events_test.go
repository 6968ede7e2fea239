package booking

import (
	"context"
	"testing"
	"time"
)

// TestEventOf: every change of an appointment's status, its move and an
// offer is a domain event read off its audit entry, with what the event
// tells (the HELD place's deadline, the suspension); an entry of another
// entity, or one that moved nothing, is none.
func TestEventOf(t *testing.T) {
	ctx := WithActor(context.Background(), Actor{Role: RolePatient, ID: "7"})
	at := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	hold := at.Add(15 * time.Minute)
	a := Appointment{ID: 3, SlotID: 4, PatientID: 7, Status: StatusBooked}
	held := a
	held.Status, held.HoldExpiresAt = StatusHeld, &hold
	moved := a
	moved.SlotID = 5
	with := func(st Status) Appointment { b := a; b.Status = st; return b }
	cases := []struct {
		name string
		e    AuditEntry
		want string
	}{
		{"booked", AuditAppointment(ctx, at, AppointmentChange{Action: "book", Appointment: a}), EventBooked},
		{"held", AuditAppointment(ctx, at, AppointmentChange{Action: "book", Appointment: held}), EventHeld},
		{"a visit", AuditVisit(ctx, at, held, []int64{9}), EventHeld},
		{"a walk-in", AuditAppointment(ctx, at, AppointmentChange{Action: AuditWalkIn, Appointment: a}), EventBooked},
		{"paid", AuditAppointment(ctx, at, AppointmentChange{Action: "payment", From: StatusHeld, Appointment: a}), EventBooked},
		{"cancelled", AuditAppointment(ctx, at, AppointmentChange{Action: "cancel", From: StatusBooked, Appointment: with(StatusCancelled)}), EventCancelled},
		{"expired", AuditAppointment(ctx, at, AppointmentChange{Action: "expire", From: StatusHeld, Appointment: with(StatusExpired)}), EventExpired},
		{"arrived", AuditAppointment(ctx, at, AppointmentChange{Action: AuditCheckIn, From: StatusBooked, Appointment: with(StatusArrived)}), EventArrived},
		{"completed", AuditAppointment(ctx, at, AppointmentChange{Action: "completed", From: StatusArrived, Appointment: with(StatusCompleted)}), EventCompleted},
		{"no-show", AuditAppointment(ctx, at, AppointmentChange{Action: AuditAutoNoShow, From: StatusBooked, Appointment: with(StatusNoShow)}), EventNoShow},
		{"rescheduled", AuditReschedule(ctx, at, 4, moved), EventRescheduled},
		{"offered", AuditAppointment(ctx, at, AppointmentChange{Action: AuditOffer, Appointment: held}), EventOfferMade},
		{"a leftover offered", AuditAppointment(ctx, at, AppointmentChange{Action: AuditLeftoverOffer, Appointment: held}), EventOfferMade},
		{"suspended", AuditAppointment(ctx, at, AppointmentChange{Action: AuditSuspensionCancel, From: StatusBooked, Appointment: with(StatusCancelled), SuspensionID: 11}), EventSlotSuspended},
		{"nothing moved", AuditAppointment(ctx, at, AppointmentChange{Action: "touch", From: StatusBooked, Appointment: a}), ""},
		{"a slot", AuditSlotUpdate(ctx, at, SlotChange{After: Slot{ID: 4}}), ""},
	}
	for _, c := range cases {
		c.e.ID = 99
		ev, ok := EventOf(c.e)
		if ok != (c.want != "") || ev.Type != c.want {
			t.Errorf("%s: event %+v %v, want %q", c.name, ev, ok, c.want)
			continue
		}
		if !ok {
			continue
		}
		wantSlot := int64(4)
		if c.name == "rescheduled" {
			wantSlot = 5
		}
		if ev.ID != 99 || ev.AppointmentID != 3 || ev.SlotID != wantSlot || ev.PatientID != 7 || !ev.Time.Equal(at) {
			t.Errorf("%s: event %+v", c.name, ev)
		}
		if (ev.Status == StatusHeld) != (ev.HoldExpiresAt != nil) || (ev.HoldExpiresAt != nil && !ev.HoldExpiresAt.Equal(hold)) {
			t.Errorf("%s: deadline %v for status %s", c.name, ev.HoldExpiresAt, ev.Status)
		}
		if (c.want == EventSlotSuspended) != (ev.SuspensionID == 11) {
			t.Errorf("%s: suspension %d", c.name, ev.SuspensionID)
		}
	}
}

// TestEventPageThrough: the cursor moves past confirmed events only, and
// past the entries of no event when every event went.
func TestEventPageThrough(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 6, 7, 0, 0, 0, time.UTC)
	a := Appointment{ID: 3, SlotID: 4, PatientID: 7, Status: StatusBooked}
	booked := AuditAppointment(ctx, at, AppointmentChange{Action: "book", Appointment: a})
	none := AuditAppointment(ctx, at, AppointmentChange{Action: "touch", From: StatusBooked, Appointment: a})
	var es []AuditEntry
	for i, e := range []AuditEntry{booked, none, booked, none} {
		e.ID = int64(10 + i)
		es = append(es, e)
	}
	p := NewEventPage(es)
	if len(p.Events) != 2 || p.Events[1].ID != 12 {
		t.Fatalf("events %+v", p.Events)
	}
	for n, want := range []int64{0, 10, 13} {
		if got := p.Through(n); got != want {
			t.Errorf("%d confirmed: through %d, want %d", n, got, want)
		}
	}
	if got := NewEventPage([]AuditEntry{es[1]}).Through(0); got != 11 {
		t.Errorf("a page of no event: through %d, want 11", got)
	}
	if got := NewEventPage(nil).Through(0); got != 0 {
		t.Errorf("an empty page: through %d", got)
	}
}
