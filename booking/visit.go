package booking

import (
	"fmt"
	"slices"
	"time"
)

// A visit is a booking of a service: one appointment from the slot the
// patient chose until the service's end, taking a place in every slot of
// the doctor it covers. It is decided here, in one pure function, from
// what a store read under the locks of all those slots, taken in id order
// (as a reschedule takes its two): two visits wanting overlapping runs
// queue one behind the other instead of deadlocking, and either every
// place is taken or none. The appointment's row sits in the first slot
// (its queue number is there); the other slots are its places
// (appointment_places), whose counters follow the appointment's state.

// CodeServiceNotOffered refuses a visit the doctor cannot give from that
// slot: the doctor does not offer the service, or the doctor's slots from
// there do not add up to its duration without a gap.
const CodeServiceNotOffered Code = "service-not-offered"

// Visit names a visit to book: a service from a slot.
type Visit struct{ SlotID, ServiceID int64 }

// VisitRequest asks for a visit of ServiceID starting at SlotID.
type VisitRequest struct {
	PatientID      int64
	ServiceID      int64
	SlotID         int64
	IdempotencyKey string
	// Fingerprint is VisitFingerprint of the request.
	Fingerprint string
	// Staff books for the patient (the no-show block does not apply).
	Staff bool
	// Admission is the opening whose waiting room admitted the patient, as
	// BookRequest.Admission.
	Admission int64
}

// VisitFingerprint is the canonical form of a visit's request body; it
// differs from a plain booking's of the same slot.
func VisitFingerprint(slotID, serviceID int64) string {
	return fmt.Sprintf("slot=%d;service=%d", slotID, serviceID)
}

// VisitReads is what a store reads under the run's locks.
type VisitReads struct {
	// Existing is the appointment already made with the request's
	// (patient, key), if any.
	Existing *Appointment
	// Service is the service asked for (nil: none with that id).
	Service *Service
	// Run is the slot asked for followed by its doctor's slots that start
	// before the service would end, in time order (empty: no such slot).
	Run []Slot
	// Missing: no such patient; Inactive: the patient is deactivated.
	Missing, Inactive bool
	// Holding: the patient holds an active appointment in a slot of Run;
	// Overlapping: elsewhere, overlapping the visit's time.
	Holding, Overlapping bool
	// Policy is the first slot's policy and Load the patient's;
	// OpeningID the first slot's announced opening, as BookReads.OpeningID.
	Policy    Policy
	OpeningID int64
	Load      PatientLoad
	// Taken are the queue numbers in use in the first slot.
	Taken []int
	// Rule is the first slot's schedule's eligibility rule (read with
	// Policy) and ServiceRule the service's (read with Service); nil for
	// none. Person is the patient as the rules need it, read only when
	// one of them NeedsPersons.
	Rule        *EligibilityRule
	ServiceRule *ServiceRule
	Person      Person
}

// NeedsPersons says whether deciding rd needs the patient read.
func (rd VisitReads) NeedsPersons() bool {
	return rd.Rule.NeedsPersons() || rd.ServiceRule.Rule().NeedsPersons()
}

// VisitDecision is what the store writes: nothing when Err is set or the
// request is Replayed; else one place in each of Places (slot ids in id
// order, the lock order) by the conditional update, the Appointment in
// the first slot, a place row for each of Extra, and the Notification
// (none, its Kind "", for a HELD visit: it is told when paid).
type VisitDecision struct {
	Err          error
	Replayed     bool
	Appointment  Appointment
	Places       []int64
	Extra        []int64
	Notification Notification
}

// Result is the answer of the decision once the store knows the new
// appointment's id.
func (d VisitDecision) Result(id int64) BookResult {
	if d.Err != nil {
		return BookResult{Err: d.Err}
	}
	a := d.Appointment
	if !d.Replayed {
		a.ID = id
	}
	return BookResult{Appointment: a, Replayed: d.Replayed}
}

// DecideVisit decides r from rd at now. The answers, in order: a replay
// (or key-reused); the service or the slot not found (or withdrawn); a
// round's slot; the doctor not offering the service; a run that does not
// cover the service's duration without a gap; each slot's own refusal
// (closed, not open yet); the patient not found or deactivated; already
// booked in one of the slots; overlapping; the policy; and a slot with no
// place left, named by its id.
func DecideVisit(r VisitRequest, rd VisitReads, now time.Time) VisitDecision {
	fail := func(err error) VisitDecision { return VisitDecision{Err: err} }
	if a := rd.Existing; a != nil {
		res := ReplayOf(*a, BookRequest{Fingerprint: r.Fingerprint})
		if res.Err != nil {
			return fail(res.Err)
		}
		return VisitDecision{Replayed: true, Appointment: *a}
	}
	svc := rd.Service
	switch {
	case svc == nil || !svc.Active:
		return fail(NotFound("service"))
	case len(rd.Run) == 0 || rd.Run[0].ID != r.SlotID:
		return fail(NotFound("slot"))
	}
	first := rd.Run[0]
	end := first.StartAt.Add(time.Duration(svc.Minutes) * time.Minute)
	if first.RoundID != 0 {
		return fail(Errorf(CodeInvalidRequest, "a round's slot is not booked by service"))
	}
	if e := admissionRefusal(rd.OpeningID, BookRequest{Staff: r.Staff, Admission: r.Admission}, first.ID); e != nil {
		return fail(e)
	}
	if !svc.Offers(first.DoctorID) {
		return fail(&Error{Code: CodeServiceNotOffered, SlotID: first.ID, Message: "this doctor does not offer this service"})
	}
	run, err := visitRun(rd.Run, end)
	if err != nil {
		return fail(err)
	}
	for _, sl := range run {
		if e := SlotRefusal(sl, nil, now); e != nil {
			return fail(e)
		}
	}
	switch {
	case rd.Missing:
		return fail(NotFound("patient"))
	case rd.Inactive:
		return fail(InactiveRefusal(first.ID))
	case rd.Holding:
		return fail(ConstraintError(ConSlotPatientActive, first.ID))
	case rd.Overlapping:
		return fail(ConstraintError(ConNoOverlap, first.ID))
	}
	if e := PolicyRefusal(PolicyCheck{Policy: rd.Policy, Load: rd.Load, Staff: r.Staff, SlotID: first.ID}, now); e != nil {
		return fail(e)
	}
	if e := visitEligibility(rd, first); e != nil {
		return fail(e)
	}
	d := VisitDecision{}
	for _, sl := range run {
		if sl.BookedCount >= sl.Capacity {
			return fail(ConstraintError(ConSlotCapacity, sl.ID))
		}
		d.Places = append(d.Places, sl.ID)
		if sl.ID != first.ID {
			d.Extra = append(d.Extra, sl.ID)
		}
	}
	slices.Sort(d.Places)
	q := 1
	for slices.Contains(rd.Taken, q) {
		q++
	}
	a := Appointment{SlotID: first.ID, DoctorID: first.DoctorID, PatientID: r.PatientID, Status: StatusBooked,
		QueueNumber: q, StartAt: first.StartAt, EndAt: end, CreatedAt: now, UpdatedAt: now,
		IdempotencyKey: r.IdempotencyKey, Fingerprint: r.Fingerprint, ServiceID: svc.ID}
	d.Notification = Notification{Kind: NotifyConfirmation}
	if first.FeeCents > 0 {
		// The payment asks the first slot's fee, as for any booking of it.
		t := now.Add(time.Duration(first.HoldSeconds) * time.Second)
		a.Status, a.HoldExpiresAt, d.Notification.Kind = StatusHeld, &t, "" // told when paid
	}
	d.Appointment = a
	return d
}

// visitEligibility is a visit's refusal under its slot's schedule rule
// and its service's rule: both must pass, each decided by Eligible. A
// visit presents no invitation code, so a schedule that needs one refuses
// it. A schedule's reserved places are not weighed here: they are decided
// with a booking's batch (DecideBooking), not for visits.
func visitEligibility(rd VisitReads, first Slot) *Error {
	for _, rule := range []*EligibilityRule{rd.Rule, rd.ServiceRule.Rule()} {
		if e := Eligible(rule, rd.Person, first.StartAt); e != nil {
			e.SlotID = first.ID
			return e
		}
	}
	if rd.Rule != nil && rd.Rule.InvitationRequired {
		e := Errorf(CodeInvitationRequired, "this slot needs an invitation code, which a visit does not present")
		e.SlotID = first.ID
		return e
	}
	return nil
}

// visitRun is the part of run the visit covers, until end: consecutive
// slots, each starting where the previous one ends, the last ending at
// end exactly.
func visitRun(run []Slot, end time.Time) ([]Slot, error) {
	gap := func() error {
		return &Error{Code: CodeServiceNotOffered, SlotID: run[0].ID,
			Message: "this doctor has no consecutive slots for the whole service from this time"}
	}
	for i, sl := range run {
		switch {
		case i > 0 && !sl.StartAt.Equal(run[i-1].EndAt), sl.RoundID != 0, sl.EndAt.After(end), i >= MaxVisitSlots:
			return nil, gap()
		case sl.EndAt.Equal(end):
			return run[:i+1], nil
		}
	}
	return nil, gap()
}
