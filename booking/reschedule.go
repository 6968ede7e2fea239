package booking

import (
	"fmt"
	"slices"
	"time"
)

// The decision of Store.Reschedule: a pure function of what a store read
// under the locks of both slots (taken in id order, so that two reschedules
// between the same slots never wait for each other in opposite orders).

// CodeFeeDiffers refuses moving an appointment to a slot with another fee:
// a payment made (or awaited) for one price cannot silently cover another.
const CodeFeeDiffers Code = "reschedule-fee-differs"

// RescheduleRequest asks to move a patient's appointment to another slot.
// IdempotencyKey and Fingerprint (RescheduleFingerprint) identify it.
type RescheduleRequest struct {
	AppointmentID  int64
	PatientID      int64 // 0 for staff: any patient's appointment
	SlotID         int64
	IdempotencyKey string
	Fingerprint    string
}

// RescheduleFingerprint is the canonical form of a reschedule request.
func RescheduleFingerprint(appointmentID, slotID int64) string {
	return fmt.Sprintf("reschedule=%d;slot=%d", appointmentID, slotID)
}

// RescheduleReads is what a store reads under both slots' locks.
type RescheduleReads struct {
	// Replay is the appointment an earlier reschedule with the same
	// (patient, key) moved, and ReplayFingerprint that request's form.
	Replay            *Appointment
	ReplayFingerprint string
	// Appointment is the one to move (nil when it does not exist).
	Appointment *Appointment
	// From and To are the slots (To nil when it does not exist); ToRound
	// is To's round, if any.
	From, To *Slot
	ToRound  *Round
	// HoldsTo: the patient holds another active appointment in To;
	// Overlapping: another active appointment (not the one moved) overlaps To.
	HoldsTo, Overlapping bool
	// Taken are the queue numbers in use in To.
	Taken []int
	// Cutoff is the policy's cancel cutoff of the appointment's slot: a
	// patient changes an appointment only until then, as they cancel it.
	Cutoff time.Duration
}

// RescheduleDecision is what the store writes: nothing when Err is set or
// Replayed; else the appointment moves to To with Queue (its times become
// To's, its state and hold stay), To takes one place and From releases one,
// in that order, with the Notification.
type RescheduleDecision struct {
	Err error
	RescheduleResult
	Queue        int
	Notification Notification
}

// RescheduleResult answers a reschedule: the moved (or replayed)
// appointment and the slot it left (0 for a replay).
type RescheduleResult struct {
	Appointment  Appointment
	Replayed     bool
	FromSlotID   int64
	FromDoctorID int64
}

// DecideReschedule decides r from rd at now. The answers, in order: the
// appointment not found (or another patient's); a replay (or
// key-reused); not active (invalid-transition) or started; the target slot
// not found, the same slot, a service's visit, a round's slot (allocations are not moved);
// the target's own refusal (closed, not open yet); another fee; already
// booked there; overlapping; full. The patient's own old appointment does
// not count against the overlap rule.
func DecideReschedule(r RescheduleRequest, rd RescheduleReads, now time.Time) RescheduleDecision {
	fail := func(err error) RescheduleDecision { return RescheduleDecision{Err: err} }
	a := rd.Appointment
	switch {
	case a == nil || (r.PatientID != 0 && a.PatientID != r.PatientID):
		return fail(NotFound("appointment"))
	case rd.Replay != nil && rd.ReplayFingerprint == r.Fingerprint:
		return RescheduleDecision{RescheduleResult: RescheduleResult{Replayed: true, Appointment: *rd.Replay}}
	case rd.Replay != nil:
		return fail(KeyReused(r.SlotID))
	case !a.Status.Active():
		return fail(Errorf(CodeInvalidTransition, "a %s appointment cannot be rescheduled", a.Status))
	case !now.Before(a.StartAt):
		return fail(Errorf(CodeAlreadyStarted, "the appointment has already started"))
	case r.PatientID != 0 && !now.Add(rd.Cutoff).Before(a.StartAt):
		return fail(Errorf(CodeCancelCutoff, "appointments can be moved only until %d hours before they start; please call the clinic", int(rd.Cutoff.Hours())))
	case a.RoundID != 0:
		return fail(Errorf(CodeInvalidRequest, "a round's allocation cannot be rescheduled"))
	case a.ServiceID != 0:
		// A visit holds a run of its doctor's slots (booking/visit.go):
		// moving it is a new visit's decision, not one slot's.
		return fail(Errorf(CodeInvalidRequest, "an appointment for a service cannot be moved; cancel it and book again"))
	case rd.To == nil:
		return fail(NotFound("slot"))
	case rd.To.ID == a.SlotID:
		return fail(Errorf(CodeInvalidRequest, "the appointment is already in this slot"))
	case rd.To.RoundID != 0:
		return fail(Errorf(CodeInvalidRequest, "an appointment cannot be moved into a round's slot"))
	}
	if e := SlotRefusal(*rd.To, rd.ToRound, now); e != nil {
		return fail(e)
	}
	switch {
	case rd.From != nil && rd.From.FeeCents != rd.To.FeeCents:
		return fail(&Error{Code: CodeFeeDiffers, SlotID: rd.To.ID, Message: fmt.Sprintf(
			"the new slot's fee (%d) differs from the appointment's (%d); cancel and book instead", rd.To.FeeCents, rd.From.FeeCents)})
	case rd.HoldsTo:
		return fail(ConstraintError(ConSlotPatientActive, rd.To.ID))
	case rd.Overlapping:
		return fail(ConstraintError(ConNoOverlap, rd.To.ID))
	case rd.To.BookedCount >= rd.To.Capacity:
		return fail(ConstraintError(ConSlotCapacity, rd.To.ID))
	}
	q := 1
	for slices.Contains(rd.Taken, q) {
		q++
	}
	moved := *a
	moved.SlotID, moved.DoctorID, moved.QueueNumber = rd.To.ID, rd.To.DoctorID, q
	moved.StartAt, moved.EndAt, moved.UpdatedAt = rd.To.StartAt, rd.To.EndAt, now
	return RescheduleDecision{RescheduleResult: RescheduleResult{Appointment: moved, FromSlotID: a.SlotID, FromDoctorID: a.DoctorID},
		Queue: q, Notification: Notification{Kind: NotifyRescheduled, AppointmentID: a.ID, Ref: fmt.Sprintf("slot-%d", rd.To.ID)}}
}
