package booking

import (
	"cmp"
	"slices"
	"time"
)

// Why a cancel or a staff transition is refused, decided once for every
// store. Each store performs the change as a conditional update and, when
// it matched nothing or the row says no, asks these.

// CancelRefusal tells why a cancel of appointment a, asked by patientID
// (0 for staff), changed nothing at now: nil when a is already cancelled
// (the cancel is answered with a as it is), not found when a is another
// patient's, appointment-started when a is still active but has begun,
// else invalid-transition.
//
// cutoff is the policy's cancel cutoff for a patient (0 for staff): a
// patient's cancel within it of the start is cancel-cutoff.
func CancelRefusal(a Appointment, patientID int64, now time.Time, cutoff time.Duration) error {
	switch {
	case patientID != 0 && a.PatientID != patientID:
		return NotFound("appointment")
	case a.Status == StatusCancelled:
		return nil
	case CanTransition(a.Status, StatusCancelled) && !now.Before(a.StartAt):
		return Errorf(CodeAlreadyStarted, "the appointment has already started")
	case CanTransition(a.Status, StatusCancelled) && patientID != 0 && !now.Add(cutoff).Before(a.StartAt):
		return Errorf(CodeCancelCutoff, "appointments can be cancelled only until %d hours before they start; please call the clinic", int(cutoff.Hours()))
	}
	return Errorf(CodeInvalidTransition, "a %s appointment cannot be cancelled", a.Status)
}

// StaffTarget refuses a staff transition to anything but COMPLETED or
// NO_SHOW: the other states have their own operations, which also
// announce them (Cancel, ConfirmPayment, ExpireHolds).
func StaffTarget(to Status) error {
	if to != StatusCompleted && to != StatusNoShow {
		return Errorf(CodeInvalidRequest, "staff can only mark an appointment %s or %s", StatusCompleted, StatusNoShow)
	}
	return nil
}

// StaffTransition decides a staff transition of an appointment in state
// from to `to` (StaffTarget checked first): noop when it is there already
// (a repeated click changes nothing), else invalid-transition unless the
// transition table allows it, and appointment-not-started before start:
// what happened at an appointment is known only once it has begun.
func StaffTransition(from, to Status, start, now time.Time) (noop bool, err error) {
	if err := StaffTarget(to); err != nil {
		return false, err
	}
	switch {
	case from == to:
		return true, nil
	case !CanTransition(from, to):
		return false, Errorf(CodeInvalidTransition, "a %s appointment cannot become %s", from, to)
	case now.Before(start):
		return false, Errorf(CodeNotStarted, "an appointment can be marked %s only once it has started", to)
	}
	return false, nil
}

// SuspensionNotices are the notifications of suspension suspensionID that
// cancelled the appointments cancelled: one per patient, however many of
// their appointments the period held, naming their earliest (by start,
// then id), in appointment order.
func SuspensionNotices(suspensionID int64, cancelled []Appointment) []Notification {
	earliest := map[int64]Appointment{}
	for _, a := range cancelled {
		e, ok := earliest[a.PatientID]
		if !ok || a.StartAt.Before(e.StartAt) || (a.StartAt.Equal(e.StartAt) && a.ID < e.ID) {
			earliest[a.PatientID] = a
		}
	}
	ns := make([]Notification, 0, len(earliest))
	for _, a := range earliest {
		ns = append(ns, Notification{Kind: NotifySuspension, AppointmentID: a.ID, SuspensionID: suspensionID})
	}
	slices.SortFunc(ns, func(x, y Notification) int { return cmp.Compare(x.AppointmentID, y.AppointmentID) })
	return ns
}
