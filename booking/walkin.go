package booking

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Walk-ins: on the day, the front desk may add a place to a full slot for
// someone standing at the desk, with a reason, at most
// Policy.WalkInsPerSlot active walk-ins per slot. A walk-in is an ordinary
// BOOKED appointment marked WalkIn; it counts in the slot's booked places,
// which may then exceed the capacity by the slot's walk-in allowance
// (slots.walk_ins, never lowered: a cancelled walk-in does not reopen a place
// to booking beyond the capacity). Reconciliation counts walk-ins apart.

const (
	// DefaultWalkInsPerSlot is a new clinic's policy; MaxWalkInsPerSlot
	// bounds it.
	DefaultWalkInsPerSlot = 2
	MaxWalkInsPerSlot     = 20
	// MaxWalkInReason bounds a walk-in's reason, in characters.
	MaxWalkInReason = 200
)

// AuditWalkIn is the audit action of a walk-in's appointment.
const AuditWalkIn = "walk-in"

// WalkInRequest is a walk-in as the Service passes it to the store: the
// slot, the patient, the reason and the request's Idempotency-Key (a
// retry answers the first result).
type WalkInRequest struct {
	SlotID    int64
	PatientID int64
	Reason    string
	Key       string
}

// Fingerprint is the canonical form of the request, compared on a replay.
func (r WalkInRequest) Fingerprint() string { return "walk-in:" + Fingerprint(r.SlotID) }

// CheckWalkInReason refuses an empty reason or one longer than
// MaxWalkInReason characters (after trimming), and answers the trimmed one.
func CheckWalkInReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return "", Errorf(CodeInvalidRequest, "a walk-in needs a reason")
	case !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxWalkInReason:
		return "", Errorf(CodeInvalidRequest, "a walk-in's reason must be at most %d characters", MaxWalkInReason)
	}
	return reason, nil
}

// WalkInReads is what a store reads under the slot's lock to decide a
// walk-in.
type WalkInReads struct {
	// Slot and its Doctor (whose time zone says which day is the slot's).
	Slot   Slot
	Doctor Doctor
	// Policy is the clinic's (WalkInsPerSlot).
	Policy Policy
	// Allowance is the slot's walk-in allowance (slots.walk_ins): how far
	// above its capacity walk-ins ever took it.
	Allowance int
	// Patient is the walk-in's patient, nil when there is none.
	Patient *Patient
	// Existing is the appointment the request's key already made, if any.
	Existing *Appointment
	// WalkIns counts the slot's active walk-ins; Taken are the queue
	// numbers its active appointments hold, in ascending order.
	WalkIns int
	Taken   []int
	// ActiveHere: the patient holds an active appointment in the slot;
	// Overlapping: in another slot whose time overlaps it.
	ActiveHere, Overlapping bool
}

// WalkInDecision is what the store writes: a BOOKED appointment marked
// walk-in with Reason, one more booked place, and the slot's allowance
// raised to Allowance when it is above it. Replay says the key already made
// Appointment (nothing is written).
type WalkInDecision struct {
	Replay      bool
	Appointment Appointment
	Allowance   int
}

// DecideWalkIn decides walk-in r from rd at now, in this order: a replay
// (or key-reused) of the key's appointment; a round's slot, or a closed or
// ended slot; the slot not on its doctor's day of now; the slot not full (a
// normal booking then); walk-ins off or the slot's used up; the patient
// missing or departed; already booked here; overlapping. The reason is
// checked by the Service (CheckWalkInReason) before any read.
func DecideWalkIn(r WalkInRequest, rd WalkInReads, now time.Time) (WalkInDecision, error) {
	sl := rd.Slot
	if rd.Existing != nil {
		if rd.Existing.Fingerprint != r.Fingerprint() {
			return WalkInDecision{}, KeyReused(sl.ID)
		}
		return WalkInDecision{Replay: true, Appointment: *rd.Existing}, nil
	}
	if sl.RoundID != 0 {
		return WalkInDecision{}, Errorf(CodeInvalidRequest, "a round's slot takes no walk-in")
	}
	if sl.Status != SlotOpen {
		return WalkInDecision{}, &Error{Code: CodeSlotClosed, Message: "the slot is closed", SlotID: sl.ID}
	}
	if !now.Before(sl.EndAt) {
		return WalkInDecision{}, &Error{Code: CodeSlotClosed, Message: "the slot has ended", SlotID: sl.ID}
	}
	loc, err := rd.Doctor.Location()
	if err != nil {
		loc = time.UTC
	}
	if from, to := DayBounds(now, loc); sl.StartAt.Before(from) || !sl.StartAt.Before(to) {
		return WalkInDecision{}, &Error{Code: CodeWalkInNotToday, Message: "a walk-in is added on the slot's day only", SlotID: sl.ID}
	}
	if sl.BookedCount < sl.Capacity {
		return WalkInDecision{}, &Error{Code: CodeSlotNotFull, Message: "the slot has free places: book one", SlotID: sl.ID}
	}
	if rd.WalkIns >= rd.Policy.WalkInsPerSlot {
		e := Errorf(CodeWalkInLimit, "this slot takes at most %d walk-ins", rd.Policy.WalkInsPerSlot)
		e.SlotID = sl.ID
		return WalkInDecision{}, e
	}
	if rd.Patient == nil {
		return WalkInDecision{}, NotFound("patient")
	}
	if e := DepartedRefusal(*rd.Patient); e != nil {
		e.SlotID = sl.ID
		return WalkInDecision{}, e
	}
	if rd.ActiveHere {
		return WalkInDecision{}, &Error{Code: CodeAlreadyBooked, Message: "the patient already holds a place in this slot", SlotID: sl.ID}
	}
	if rd.Overlapping {
		return WalkInDecision{}, &Error{Code: CodeOverlapping, Message: "the patient has another appointment at an overlapping time", SlotID: sl.ID}
	}
	a := Appointment{SlotID: sl.ID, DoctorID: sl.DoctorID, PatientID: r.PatientID, Status: StatusBooked,
		StartAt: sl.StartAt, EndAt: sl.EndAt, CreatedAt: now, UpdatedAt: now,
		QueueNumber: afterLast(rd.Taken), IdempotencyKey: r.Key, Fingerprint: r.Fingerprint(), WalkIn: true, WalkInReason: r.Reason}
	return WalkInDecision{Appointment: a, Allowance: max(rd.Allowance, sl.BookedCount+1-sl.Capacity)}, nil
}

// afterLast is the number after the highest taken (taken ascending): a
// walk-in lines up after the slot's booked places, and walk-ins among
// themselves by their arrival at the desk, never in a cancelled number
// ahead of those who booked.
func afterLast(taken []int) int {
	if len(taken) == 0 {
		return 1
	}
	return taken[len(taken)-1] + 1
}

// Walk-in outcomes, the metric's outcome label: a place added, a replay
// answered as it was, and the refusals by code ("other" for the rest).
const (
	WalkInAdded    = "added"
	WalkInReplayed = "replayed"
	WalkInOther    = "other"
)

// WalkInOutcomes are every outcome the metric counts.
var WalkInOutcomes = []string{WalkInAdded, WalkInReplayed, string(CodeSlotNotFull), string(CodeWalkInNotToday),
	string(CodeWalkInLimit), string(CodeForbidden), string(CodeInvalidRequest), WalkInOther}

// WalkInOutcome names the outcome of a walk-in that answered err (replay:
// its key had made it already).
func WalkInOutcome(replay bool, err error) string {
	switch c := ErrorCode(err); {
	case err == nil && replay:
		return WalkInReplayed
	case err == nil:
		return WalkInAdded
	case c == CodeSlotNotFull, c == CodeWalkInNotToday, c == CodeWalkInLimit, c == CodeForbidden, c == CodeInvalidRequest:
		return string(c)
	}
	return WalkInOther
}
