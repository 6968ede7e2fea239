package booking

import "time"

// Event-only notification kinds: state changes that tell no patient
// anything but are domain events (Event). Delivered is false for them, so
// the notification queue never sees them.
const (
	NotifyHeld      NotificationKind = "held"      // a place is held until paid
	NotifyCompleted NotificationKind = "completed" // staff marked it COMPLETED
	NotifyNoShow    NotificationKind = "no-show"   // staff marked it NO_SHOW
	NotifyArrived   NotificationKind = "arrived"   // the patient checked in (ARRIVED)
	// NotifyDeclined: the patient declined a waiting-list offer (its HELD
	// place is cancelled); they need no message about their own answer.
	NotifyDeclined NotificationKind = "declined"
)

// Delivered says whether a notification of kind k goes to the enqueuer (a
// message to the patient, or a job): every kind but the event-only ones.
func (k NotificationKind) Delivered() bool {
	switch k {
	case NotifyHeld, NotifyCompleted, NotifyNoShow, NotifyArrived, NotifyDeclined:
		return false
	}
	return true
}

// Messages keeps the notifications of ns that are messages to patients:
// what the stores hand their enqueuer (the rest are events only).
func Messages(ns []Notification) []Notification {
	out := ns[:0:0]
	for _, n := range ns {
		if n.Kind.Delivered() {
			out = append(out, n)
		}
	}
	return out
}

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
	// EventSlotSuspended is one per patient told of a suspension, naming one
	// of their cancelled appointments (SuspensionNotices).
	EventSlotSuspended = "slotd.slot.suspended.v1"
	// EventRescheduled: the appointment moved to another slot (its slotId
	// is the new one). EventOfferMade: a waiting-list offer holds a place
	// for the patient (status HELD until answered).
	EventRescheduled = "slotd.appointment.rescheduled.v1"
	EventOfferMade   = "slotd.appointment.offer_made.v1"
)

// EventType is the domain event a notification of kind k records; "" for
// a kind that records no state change of an appointment (a job, a
// reminder): the stores write no event for it.
func EventType(k NotificationKind) string {
	switch k {
	case NotifyConfirmation:
		return EventBooked
	case NotifyHeld:
		return EventHeld
	case NotifyCancellation, NotifyDeclined:
		return EventCancelled
	case NotifyExpiry:
		return EventExpired
	case NotifyCompleted:
		return EventCompleted
	case NotifyNoShow:
		return EventNoShow
	case NotifyArrived:
		return EventArrived
	case NotifySuspension:
		return EventSlotSuspended
	case NotifyRescheduled:
		return EventRescheduled
	case NotifyOffer, NotifyLeftoverOffer:
		return EventOfferMade
	}
	return ""
}

// TransitionNotices are what a staff transition or a check-in to `to`
// announces.
func TransitionNotices(appointmentID int64, to Status) []Notification {
	switch to {
	case StatusArrived:
		return []Notification{{Kind: NotifyArrived, AppointmentID: appointmentID}}
	case StatusCompleted:
		return []Notification{{Kind: NotifyCompleted, AppointmentID: appointmentID}}
	case StatusNoShow:
		return []Notification{{Kind: NotifyNoShow, AppointmentID: appointmentID}}
	}
	return nil
}

// Event is one domain event of the outbox, written in the transaction of
// the state change it records (the stores' notify) and published at least
// once, in ID order, by the event relay. ID is stable: a republished event
// carries the same one, which is what a consumer dedupes on.
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
