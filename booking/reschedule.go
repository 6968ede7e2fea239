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
	// For a visit (the appointment has a ServiceID): Service is its
	// service, Places the further slots it holds (appointment_places), and
	// ToRun To followed by its doctor's slots that start before the
	// service would end from To, in time order, all read under the locks
	// of every one of those slots and the appointment's. HoldsTo then
	// means a place in any slot of ToRun, Overlapping over the visit's
	// new time.
	Service *Service
	Places  []int64
	ToRun   []Slot
}

// RescheduleDecision is what the store writes: nothing when Err is set or
// Replayed; else each slot of Take takes one place (by the conditional
// update), the appointment moves to To with Queue (its times become
// Appointment's, its state and hold stay), each slot of Released gives
// one back, in that order, and the appointment's further places become
// Extra (a visit's; none for one slot), with the Notification. A visit
// moved within its own run keeps the places it already holds: they are in
// neither list.
type RescheduleDecision struct {
	Err error
	RescheduleResult
	Queue        int
	Take, Extra  []int64
	Notification Notification
}

// RescheduleResult answers a reschedule: the moved (or replayed)
// appointment, the slot it left and its doctor (0 for a replay), and the
// slots that gave a place back (id order).
type RescheduleResult struct {
	Appointment  Appointment
	Replayed     bool
	FromSlotID   int64
	FromDoctorID int64
	Released     []int64
}

// DecideReschedule decides r from rd at now. The answers, in order: the
// appointment not found (or another patient's); a replay (or
// key-reused); not active (invalid-transition) or started; the target slot
// not found, the same slot, a round's slot (allocations are not moved);
// for a visit, its service withdrawn, not offered by the target's doctor
// or without consecutive slots from there (DecideVisit's rules); the
// target's own refusal (closed, not open yet), each slot of a visit's new
// run's; another fee; already booked there; overlapping; full (a visit:
// the first slot of its new run without a place). The patient's own old
// appointment does not count against the overlap rule.
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
	case rd.To == nil:
		return fail(NotFound("slot"))
	case rd.To.ID == a.SlotID:
		return fail(Errorf(CodeInvalidRequest, "the appointment is already in this slot"))
	case rd.To.RoundID != 0:
		return fail(Errorf(CodeInvalidRequest, "an appointment cannot be moved into a round's slot"))
	}
	run, end := []Slot{*rd.To}, rd.To.EndAt
	if a.ServiceID != 0 {
		var err error
		if run, end, err = visitMove(rd); err != nil {
			return fail(err)
		}
	}
	for _, sl := range run {
		if e := SlotRefusal(sl, rd.ToRound, now); e != nil {
			return fail(e)
		}
	}
	held := append([]int64{a.SlotID}, rd.Places...)
	var take, release, extra []int64
	for _, sl := range run {
		if sl.ID != rd.To.ID {
			extra = append(extra, sl.ID)
		}
		if !slices.Contains(held, sl.ID) {
			take = append(take, sl.ID)
		}
	}
	for _, id := range held {
		if !slices.ContainsFunc(run, func(sl Slot) bool { return sl.ID == id }) {
			release = append(release, id)
		}
	}
	full := slices.IndexFunc(run, func(sl Slot) bool { return slices.Contains(take, sl.ID) && sl.BookedCount >= sl.Capacity })
	switch {
	case rd.From != nil && rd.From.FeeCents != rd.To.FeeCents:
		return fail(&Error{Code: CodeFeeDiffers, SlotID: rd.To.ID, Message: fmt.Sprintf(
			"the new slot's fee (%d) differs from the appointment's (%d); cancel and book instead", rd.To.FeeCents, rd.From.FeeCents)})
	case rd.HoldsTo:
		return fail(ConstraintError(ConSlotPatientActive, rd.To.ID))
	case rd.Overlapping:
		return fail(ConstraintError(ConNoOverlap, rd.To.ID))
	case full >= 0:
		return fail(ConstraintError(ConSlotCapacity, run[full].ID))
	}
	q := 1
	for slices.Contains(rd.Taken, q) {
		q++
	}
	moved := *a
	moved.SlotID, moved.DoctorID, moved.QueueNumber = rd.To.ID, rd.To.DoctorID, q
	moved.StartAt, moved.EndAt, moved.UpdatedAt = rd.To.StartAt, end, now
	slices.Sort(take)
	slices.Sort(release)
	slices.Sort(extra)
	return RescheduleDecision{RescheduleResult: RescheduleResult{Appointment: moved, FromSlotID: a.SlotID, FromDoctorID: a.DoctorID,
		Released: release}, Queue: q, Take: take, Extra: extra,
		Notification: Notification{Kind: NotifyRescheduled, AppointmentID: a.ID, Ref: fmt.Sprintf("slot-%d", rd.To.ID)}}
}

// visitMove is the run a visit would hold from To, and its end, by
// DecideVisit's rules: the service still offered, by To's doctor, over
// consecutive slots.
func visitMove(rd RescheduleReads) ([]Slot, time.Time, error) {
	svc := rd.Service
	switch {
	case svc == nil || !svc.Active:
		return nil, time.Time{}, NotFound("service")
	case !svc.Offers(rd.To.DoctorID):
		return nil, time.Time{}, &Error{Code: CodeServiceNotOffered, SlotID: rd.To.ID, Message: "this doctor does not offer this service"}
	case len(rd.ToRun) == 0 || rd.ToRun[0].ID != rd.To.ID:
		return nil, time.Time{}, NotFound("slot")
	}
	end := rd.To.StartAt.Add(time.Duration(svc.Minutes) * time.Minute)
	run, err := visitRun(rd.ToRun, end)
	return run, end, err
}
