package booking

import (
	"fmt"
	"time"
)

// Room is a resource of kind room: a place with beds that a round offers,
// described by the attributes students choose by (docs/clinic.md, rounds). Stores keep the
// attributes (Building, Floor, NearDoor, Beds) in resources.attributes.
type Room struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	TimeZone string `json:"timezone"`
	Building string `json:"building"`
	Floor    int    `json:"floor"`
	NearDoor bool   `json:"nearDoor"`
	// Beds is the room's capacity: a round's slot of the room has Beds places.
	Beds      int       `json:"beds"`
	CreatedAt time.Time `json:"createdAt"`
}

// Validate refuses a room that cannot be stored.
func (r Room) Validate() error {
	switch {
	case r.Name == "":
		return Errorf(CodeInvalidRequest, "a room needs a name")
	case r.Beds < 1:
		return Errorf(CodeInvalidRequest, "a room needs at least one bed")
	}
	if r.TimeZone != "" {
		if _, err := time.LoadLocation(r.TimeZone); err != nil {
			return Errorf(CodeInvalidRequest, "unknown time zone %q", r.TimeZone)
		}
	}
	return nil
}

// RoomFilter selects rooms by attribute; zero fields select everything.
type RoomFilter struct {
	Building string
	Floor    *int
	NearDoor *bool
}

// Match reports whether r passes the filter. Stores filter in SQL; Match is
// the reference they and the tests agree with.
func (f RoomFilter) Match(r Room) bool {
	return (f.Building == "" || f.Building == r.Building) &&
		(f.Floor == nil || *f.Floor == r.Floor) &&
		(f.NearDoor == nil || *f.NearDoor == r.NearDoor)
}

// Round states as stored. DRAFT: being prepared (slots may be added);
// OPEN: published by an admin; CLOSED: closed early by an admin. Whether a
// round accepts applications is decided by the clock too: see Accepting.
const (
	RoundDraft  = "DRAFT"
	RoundOpen   = "OPEN"
	RoundClosed = "CLOSED"
)

// DefaultRoundQuota is the number of active allocations a student may hold
// in a round unless the round says otherwise: one room per student.
const DefaultRoundQuota = 1

// Round is a set of slots, one per room, that open together at OpensAt and
// stop accepting at ClosesAt, with a per-patient quota of active
// allocations. Its slots run over the term [TermStart, TermEnd).
type Round struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	OpensAt   time.Time `json:"opensAt"`
	ClosesAt  time.Time `json:"closesAt"`
	TermStart time.Time `json:"termStart"`
	TermEnd   time.Time `json:"termEnd"`
	Quota     int       `json:"quota"`
	// State is the stored state (RoundDraft, RoundOpen, RoundClosed);
	// Status(now) is what clients see.
	State     string    `json:"state"`
	CreatedAt time.Time `json:"createdAt"`
	// Lottery is set for a lottery round (nil for first come, first
	// served). The booking path only needs to know that there is one, and
	// the stores read nothing else of it there.
	Lottery *Lottery `json:"lottery,omitempty"`
}

// Validate refuses a round that cannot be stored. A zero Quota is taken as
// DefaultRoundQuota by the stores, so it is accepted here.
func (r Round) Validate() error {
	switch {
	case r.Name == "":
		return Errorf(CodeInvalidRequest, "a round needs a name")
	case r.OpensAt.IsZero() || r.ClosesAt.IsZero() || !r.ClosesAt.After(r.OpensAt):
		return Errorf(CodeInvalidRequest, "a round must close after it opens")
	case r.TermStart.IsZero() || r.TermEnd.IsZero() || !r.TermEnd.After(r.TermStart):
		return Errorf(CodeInvalidRequest, "a round's term must end after it starts")
	case r.Quota < 0:
		return Errorf(CodeInvalidRequest, "a round's quota must be at least 1")
	case r.State != "" && r.State != RoundDraft:
		return Errorf(CodeInvalidRequest, "a round is created as DRAFT")
	case r.Lottery != nil:
		return r.Lottery.Validate(r)
	}
	return nil
}

// Status is the round's state as seen at now: DRAFT while being prepared,
// OPEN while published and before ClosesAt (even before OpensAt: it is
// announced, Accepting tells whether it takes applications yet), CLOSED once
// closed by an admin or past ClosesAt.
func (r Round) Status(now time.Time) string {
	switch {
	case r.State == RoundDraft:
		return RoundDraft
	case r.State == RoundClosed || !now.Before(r.ClosesAt):
		return RoundClosed
	}
	return RoundOpen
}

// Accepting reports whether the round takes applications at now: published,
// and the clock inside [OpensAt, ClosesAt). The clock gates, not a flag, so
// that nobody has to flip a switch at the opening second.
func (r Round) Accepting(now time.Time) bool {
	return r.State == RoundOpen && !now.Before(r.OpensAt) && now.Before(r.ClosesAt)
}

// Refusal tells why an application to slotID of the round is refused at now,
// or nil when the round accepts it. A DRAFT round, or one not open yet,
// answers CodeNotOpenYet with OpensAt; a closed one CodeSlotClosed. Both
// stores' booking decision and the HTTP layer use it, so they agree.
func (r Round) Refusal(now time.Time, slotID int64) *Error {
	if r.Accepting(now) {
		return nil
	}
	opens := r.OpensAt
	switch {
	case r.State == RoundDraft:
		return &Error{Code: CodeNotOpenYet, Message: "the round is not open yet", SlotID: slotID, OpensAt: &opens}
	case r.State == RoundClosed || !now.Before(r.ClosesAt):
		return &Error{Code: CodeSlotClosed, Message: "the round is closed", SlotID: slotID}
	}
	e := Errorf(CodeNotOpenYet, "the round opens at %s", opens)
	e.SlotID, e.OpensAt = slotID, &opens
	return e
}

// QuotaError is the refusal of a patient whose quota in the round is used up.
func QuotaError(slotID int64, quota int) *Error {
	e := Errorf(CodeQuotaExceeded, "the quota of this round (%d) is used up", quota)
	e.SlotID = slotID
	return e
}

// RoundTransition checks a change of a round's stored state: DRAFT→OPEN,
// OPEN→CLOSED and DRAFT→CLOSED are allowed; the same state is a no-op
// (noop true, nil error); anything else is CodeInvalidTransition.
func RoundTransition(from, to string) (noop bool, err error) {
	switch {
	case to != RoundDraft && to != RoundOpen && to != RoundClosed:
		return false, Errorf(CodeInvalidRequest, "unknown round state %q", to)
	case from == to:
		return true, nil
	case from == RoundDraft && (to == RoundOpen || to == RoundClosed), from == RoundOpen && to == RoundClosed:
		return false, nil
	}
	return false, Errorf(CodeInvalidTransition, "a %s round cannot become %s", from, to)
}

// ApplicationStatus is the state of an asynchronous application.
type ApplicationStatus string

// Application states: PENDING until DecidePending decides it, then
// ALLOCATED (with an appointment) or REJECTED (with a reason), for good.
const (
	ApplicationPending   ApplicationStatus = "PENDING"
	ApplicationAllocated ApplicationStatus = "ALLOCATED"
	ApplicationRejected  ApplicationStatus = "REJECTED"
)

// Application is a student's asynchronous request for a room of a round
// (Prefer: respond-async): stored durably as PENDING, decided later in
// arrival order (by ID) through the same booking logic as a synchronous one.
type Application struct {
	ID        int64             `json:"id"`
	RoundID   int64             `json:"roundId"`
	PatientID int64             `json:"patientId"`
	SlotID    int64             `json:"slotId"`
	Status    ApplicationStatus `json:"status"`
	// Reason is the refusal's code for a REJECTED application.
	Reason Code `json:"reason,omitempty"`
	// AppointmentID is the allocation of an ALLOCATED application (0 otherwise).
	AppointmentID int64      `json:"appointmentId,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	DecidedAt     *time.Time `json:"decidedAt,omitempty"`
	// IdempotencyKey and Fingerprint identify the request that submitted
	// it: the same patient and key find this application again. The
	// decision books with the same key and Fingerprint(SlotID), so a later
	// synchronous request with that key replays the allocation.
	IdempotencyKey string `json:"-"`
	Fingerprint    string `json:"-"`
}

// ApplicationQuery selects a round's applications in Status after AfterID,
// by id, at most Limit.
type ApplicationQuery struct {
	RoundID int64
	Status  ApplicationStatus
	AfterID int64
	Limit   int
}

// ApplicationFingerprint is the canonical form of an application request,
// compared when its Idempotency-Key is reused.
func ApplicationFingerprint(roundID, slotID int64) string {
	return fmt.Sprintf("round=%d;slot=%d", roundID, slotID)
}

// RoundSlot is one slot of a round with its room.
type RoundSlot struct {
	Slot
	Room Room `json:"room"`
}

// Allocation is who holds which room: an active appointment in one of a
// round's slots, with its patient and room.
type Allocation struct {
	RoundID       int64     `json:"roundId"`
	AppointmentID int64     `json:"appointmentId"`
	SlotID        int64     `json:"slotId"`
	PatientID     int64     `json:"patientId"`
	PatientName   string    `json:"patientName"`
	RoomID        int64     `json:"roomId"`
	RoomName      string    `json:"roomName"`
	Building      string    `json:"building"`
	Floor         int       `json:"floor"`
	NearDoor      bool      `json:"nearDoor"`
	Status        Status    `json:"status"`
	Bed           int       `json:"bed"` // the appointment's queue number
	AllocatedAt   time.Time `json:"allocatedAt"`
}

// RoundQuotaMismatch is a round_quotas row whose used count differs from
// the patient's active appointments in the round's slots.
type RoundQuotaMismatch struct {
	RoundID   int64 `json:"roundId"`
	PatientID int64 `json:"patientId"`
	Used      int   `json:"used"`
	Active    int   `json:"activeAppointments"`
}

// DecideApplications decides a round's pending applications, given in
// arrival order, and records each outcome in apps. Both stores call it
// inside the transaction that holds the round, with decide running the
// booking decision for one slot in that transaction.
//
// An application is judged at its arrival, not at its decision: one that
// came before the round closed still gets its chance, one that came too
// early or too late is refused as it would have been then. Consecutive
// applications for one slot are decided as one batch, at the arrival of the
// run's last one (never later than now): every one of them arrived while the
// round accepted, so the round's clock lets the whole run in.
func DecideApplications(round Round, apps []Application, now time.Time,
	decide func(slotID int64, reqs []BookRequest, at time.Time) ([]BookResult, error)) error {
	var todo []int
	for k := range apps {
		a := &apps[k]
		if ref := round.Refusal(a.CreatedAt, a.SlotID); ref != nil {
			a.Status, a.Reason, a.DecidedAt = ApplicationRejected, ref.Code, &now
			continue
		}
		todo = append(todo, k)
	}
	for i := 0; i < len(todo); {
		j := i + 1
		for j < len(todo) && apps[todo[j]].SlotID == apps[todo[i]].SlotID {
			j++
		}
		run := todo[i:j]
		reqs := make([]BookRequest, len(run))
		at := apps[run[0]].CreatedAt
		for k, x := range run {
			a := apps[x]
			reqs[k] = BookRequest{PatientID: a.PatientID, IdempotencyKey: a.IdempotencyKey, Fingerprint: Fingerprint(a.SlotID)}
			if a.CreatedAt.After(at) {
				at = a.CreatedAt
			}
		}
		if at.After(now) {
			at = now
		}
		res, err := decide(apps[run[0]].SlotID, reqs, at)
		if err != nil {
			return err
		}
		for k, r := range res {
			a := &apps[run[k]]
			a.DecidedAt = &now
			if r.Err != nil {
				a.Status, a.Reason = ApplicationRejected, ErrorCode(r.Err)
			} else {
				a.Status, a.AppointmentID = ApplicationAllocated, r.Appointment.ID
			}
		}
		i = j
	}
	return nil
}
