package booking

import (
	"encoding/json"
	"time"
)

// Domain event types (CloudEvents "type"), one per kind of state change.
// A type is a contract with consumers: never renamed, only added.
const (
	EventBooked    = "slotd.appointment.booked.v1"
	EventHeld      = "slotd.appointment.held.v1"
	EventCancelled = "slotd.appointment.cancelled.v1"
	EventExpired   = "slotd.appointment.expired.v1"
	EventCompleted = "slotd.appointment.completed.v1"
	EventNoShow    = "slotd.appointment.no_show.v1"
	// EventArrived: the patient checked in on the day (status ARRIVED).
	EventArrived = "slotd.appointment.arrived.v1"
	// EventSlotSuspended: the appointment was cancelled by a suspension of
	// its doctor's period (suspensionId names it).
	EventSlotSuspended = "slotd.slot.suspended.v1"
	// EventRescheduled: the appointment moved to another slot (its slotId
	// is the new one). EventOfferMade: a waiting-list offer holds a place
	// for the patient (status HELD until answered).
	EventRescheduled = "slotd.appointment.rescheduled.v1"
	EventOfferMade   = "slotd.appointment.offer_made.v1"
)

// Event is one domain event. It is not written apart: it is the audit
// entry of an appointment's change (EventOf), which its transaction
// writes; the event relay publishes it at least once, each appointment's
// in the order of its changes. ID is the entry's and stable: a
// republished event carries the same one, which is what a consumer
// dedupes on.
type Event struct {
	ID            int64  `json:"id"`
	Type          string `json:"type"`
	AppointmentID int64  `json:"appointmentId"`
	SlotID        int64  `json:"slotId"`
	PatientID     int64  `json:"patientId"`
	Status        Status `json:"status"`
	SuspensionID  int64  `json:"suspensionId,omitempty"`
	// HoldExpiresAt is when a HELD place lapses unless paid or answered
	// (Held, OfferMade): what the receiver must show the patient.
	HoldExpiresAt *time.Time `json:"holdExpiresAt,omitempty"`
	Time          time.Time  `json:"time"`
}

// EventOf is the domain event audit entry e records, and false when it
// records none: an entry of another entity, or one that moved no
// appointment (its status and slot as they were).
func EventOf(e AuditEntry) (Event, bool) {
	if e.Entity != EntityAppointment || e.After == "" {
		return Event{}, false
	}
	var before, after ApptState
	if json.Unmarshal([]byte(e.After), &after) != nil || (e.Before != "" && json.Unmarshal([]byte(e.Before), &before) != nil) {
		return Event{}, false
	}
	t := changeEvent(e.Action, before, after)
	if t == "" {
		return Event{}, false
	}
	return Event{ID: e.ID, Type: t, AppointmentID: e.EntityID, SlotID: after.SlotID, PatientID: after.PatientID,
		Status: after.Status, SuspensionID: after.SuspensionID, HoldExpiresAt: after.HoldExpiresAt, Time: e.At}, true
}

// changeEvent is the event type of an appointment's change by action from
// before ("" Status: created) to after.
func changeEvent(action string, before, after ApptState) string {
	switch {
	case action == AuditSuspensionCancel:
		return EventSlotSuspended
	case (action == AuditOffer || action == AuditLeftoverOffer) && after.Status == StatusHeld:
		return EventOfferMade
	case before.Status != "" && before.Status == after.Status:
		if before.SlotID != after.SlotID {
			return EventRescheduled
		}
		return ""
	}
	switch after.Status {
	case StatusHeld:
		return EventHeld
	case StatusBooked:
		return EventBooked
	case StatusCancelled:
		return EventCancelled
	case StatusExpired:
		return EventExpired
	case StatusCompleted:
		return EventCompleted
	case StatusNoShow:
		return EventNoShow
	case StatusArrived:
		return EventArrived
	}
	return ""
}

// EventPage is a page of appointments' audit entries a relay read after
// its cursor, in order, and their Events.
type EventPage struct {
	Entries []AuditEntry
	Events  []Event
	of      []int // Events[i] is Entries[of[i]]'s
}

// NewEventPage reads the events of entries.
func NewEventPage(entries []AuditEntry) EventPage {
	p := EventPage{Entries: entries}
	for i, e := range entries {
		if ev, ok := EventOf(e); ok {
			p.Events, p.of = append(p.Events, ev), append(p.of, i)
		}
	}
	return p
}

// Through is the id of the entry the cursor moves past once the first n
// events are confirmed: the last entry when all were (the entries of no
// event after them too), the n-th event's otherwise; 0 when it stays.
func (p EventPage) Through(n int) int64 {
	switch {
	case len(p.Entries) == 0:
		return 0
	case n == len(p.Events):
		return p.Entries[len(p.Entries)-1].ID
	case n > 0:
		return p.Entries[p.of[n-1]].ID
	}
	return 0
}
