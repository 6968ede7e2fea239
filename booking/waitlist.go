package booking

import (
	"fmt"
	"slices"
	"time"
)

// The waitlist: a patient asks for any place of a doctor (or department) in
// a period and part of day. A place released in a slot that matches a
// waiting entry is not returned to open booking: the releasing transaction
// keeps it taken as a pending offer (Slot.OfferPending, counted in
// BookedCount) and writes an offer job (NotifyOfferDue); the job gives it,
// as an exclusive HELD appointment for the slot's offer minutes, to the
// earliest waiting entry (DecideOffers). An offer declined (its appointment
// cancelled) or timed out (expired) is released like any place, and so
// passes to the next entry. Every rule here is a pure function that both
// stores call inside their transactions.

// Waitlist entry states. WAITING and OFFERED are live; the rest are ends.
const (
	EntryWaiting   = "WAITING"
	EntryOffered   = "OFFERED"
	EntryAccepted  = "ACCEPTED"  // the offer became the patient's appointment
	EntryDeclined  = "DECLINED"  // the patient declined (or cancelled) the offer
	EntryExpired   = "EXPIRED"   // the offer timed out
	EntryFulfilled = "FULFILLED" // the patient booked a matching place otherwise
	EntryCancelled = "CANCELLED" // the patient left the list
	EntryLapsed    = "LAPSED"    // the period is over
)

// Parts of the day, in the doctor's zone: morning before 12:00.
const (
	PartMorning   = "morning"
	PartAfternoon = "afternoon"
	PartAny       = "any"
)

// DefaultOfferMinutes is how long an offer is held for its patient.
const DefaultOfferMinutes = 15

// NotifyOfferDue is the outbox's offer job: places of SlotID wait to be
// offered. The jobs adapter runs Service.MakeOffers for it; it is never a
// message to a patient.
const NotifyOfferDue NotificationKind = "offer-due"

// NotifyOffer tells a patient a place is held for them (the HELD offer).
const NotifyOffer NotificationKind = "offer"

// WaitlistEntry is one patient's request for a place.
type WaitlistEntry struct {
	ID           int64 `json:"id"`
	PatientID    int64 `json:"patientId"`
	DoctorID     int64 `json:"doctorId,omitempty"`
	DepartmentID int64 `json:"departmentId,omitempty"`
	// SiteID is set on a standby for leftover doses (standby.go) instead
	// of a doctor or department.
	SiteID    int64     `json:"siteId,omitempty"`
	From      time.Time `json:"from"`
	To        time.Time `json:"to"`
	PartOfDay string    `json:"partOfDay"`
	// PartySize is how many places the entry waits for (1: one person);
	// PatientIDs, for a party, are its people, PatientID first: people
	// of one account who wait together, offered places all at once
	// (party.go).
	PartySize  int     `json:"partySize"`
	PatientIDs []int64 `json:"patientIds,omitempty"`
	State      string  `json:"state"`
	// Position is 1 + the live entries before this one competing for the
	// same doctor or department (0 when the entry is no longer waiting).
	Position int `json:"position,omitempty"`
	// The offer, while OFFERED (and kept after): its appointment, slot
	// and deadline.
	AppointmentID  int64      `json:"appointmentId,omitempty"`
	SlotID         int64      `json:"slotId,omitempty"`
	OfferExpiresAt *time.Time `json:"offerExpiresAt,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`

	IdempotencyKey string `json:"-"`
	Fingerprint    string `json:"-"`
}

// Live reports whether the entry still waits or holds an offer.
func (e WaitlistEntry) Live() bool { return e.State == EntryWaiting || e.State == EntryOffered }

// WaitlistFingerprint is the canonical form of a join request.
func WaitlistFingerprint(e WaitlistEntry) string {
	fp := fmt.Sprintf("doctor=%d;department=%d;from=%d;to=%d;part=%s", e.DoctorID, e.DepartmentID,
		e.From.Unix(), e.To.Unix(), e.PartOfDay)
	if e.Size() > 1 {
		fp += fmt.Sprintf(";party=%v", e.PatientIDs)
	}
	return fp
}

// MaxWaitlistDays bounds an entry's period.
const MaxWaitlistDays = 92

// CheckWaitlistEntry validates a join request at now and fills its
// defaults (PartOfDay any).
func CheckWaitlistEntry(e *WaitlistEntry, now time.Time) error {
	if (e.DoctorID == 0) == (e.DepartmentID == 0) {
		return Errorf(CodeInvalidRequest, "give exactly one of doctorId and departmentId")
	}
	if e.PartOfDay == "" {
		e.PartOfDay = PartAny
	}
	if e.PartySize < 0 || e.PartySize > MaxGroup || len(e.PatientIDs) > MaxGroup {
		return Errorf(CodeInvalidRequest, "a party is 1 to %d people", MaxGroup)
	}
	if e.Size() > 1 && (len(e.PatientIDs) != e.Size() || e.PatientIDs[0] != e.PatientID) {
		return Errorf(CodeInvalidRequest, "a party lists its people, the one who joins first")
	}
	if e.Size() == 1 {
		e.PatientIDs = nil
	}
	e.PartySize = e.Size()
	if !slices.Contains([]string{PartMorning, PartAfternoon, PartAny}, e.PartOfDay) {
		return Errorf(CodeInvalidRequest, "partOfDay must be morning, afternoon or any")
	}
	switch {
	case e.From.IsZero() || e.To.IsZero() || !e.From.Before(e.To):
		return Errorf(CodeInvalidRequest, "from must be before to")
	case !now.Before(e.To):
		return Errorf(CodeInvalidRequest, "the period is over")
	case e.To.Sub(e.From) > MaxWaitlistDays*24*time.Hour:
		return Errorf(CodeInvalidRequest, "a period is at most %d days", MaxWaitlistDays)
	}
	e.Fingerprint = WaitlistFingerprint(*e)
	return nil
}

// JoinReplay answers a join whose patient and Idempotency-Key found entry
// e: e again (nil), or key-reused when e was made for another request
// (another fingerprint).
func JoinReplay(e WaitlistEntry, fingerprint string) error {
	if e.Fingerprint != fingerprint {
		return Errorf(CodeKeyReused, "this Idempotency-Key was already used for a different request")
	}
	return nil
}

// EntryMatches reports whether a place in sl, a slot of doctor d, is what
// e asks for: the doctor (or its department), a start in [From, To), the
// part of the day in the doctor's zone (a zone that cannot be loaded
// counts as UTC), and not a round's slot. A standby (SiteID) matches no
// released place: its places are the leftovers (DecideLeftovers).
func EntryMatches(e WaitlistEntry, sl Slot, d Doctor) bool {
	if e.SiteID != 0 || sl.RoundID != 0 || sl.StartAt.Before(e.From) || !sl.StartAt.Before(e.To) {
		return false
	}
	if e.DoctorID != 0 && e.DoctorID != sl.DoctorID || e.DepartmentID != 0 && e.DepartmentID != d.DepartmentID {
		return false
	}
	if e.PartOfDay == PartAny {
		return true
	}
	loc, err := d.Location()
	if err != nil {
		loc = time.UTC
	}
	morning := sl.StartAt.In(loc).Hour() < 12
	return morning == (e.PartOfDay == PartMorning)
}

// ReserveReads is what deciding a release's reserve reads: the Slot (with
// its pending offers) and its Doctor, the number of places just Released in
// it, and the Waiting entries that may match it.
type ReserveReads struct {
	Slot     Slot
	Doctor   Doctor
	Released int
	Waiting  []WaitlistEntry
}

// ToReserve is how many of the places just released in rd's slot are kept
// for the waitlist: as many as the live-waiting entries that match it need
// and pending offers do not yet cover, at most the places below its
// capacity (a slot over it by walk-ins offers none), and none once the slot
// cannot be booked (closed, started). rd.Slot is read after the release.
// A party counts its size and only when it fits whole in the pending and
// free places (partyNeed): then the slot's other free places are kept too,
// so that a party is offered once that many places are free; without a
// party no more than the places just released are kept.
func ToReserve(rd ReserveReads, now time.Time) int {
	sl, d, n, waiting := rd.Slot, rd.Doctor, rd.Released, rd.Waiting
	if n <= 0 || sl.Status != SlotOpen || sl.Started(now) {
		return 0
	}
	free := sl.Capacity - sl.BookedCount
	need, limit := partyNeed(waiting, sl, d, sl.OfferPending+free), n
	if need.party {
		limit = free
	}
	return max(0, min(limit, need.places-sl.OfferPending, free))
}

// OfferReads is what the offer job reads under the slot's lock: the slot
// (with its pending offers) and doctor, the waiting entries that may match
// it in request order, the patients of those who already hold an active
// appointment in the slot or overlapping it, and the queue numbers in use.
type OfferReads struct {
	Slot    Slot
	Doctor  Doctor
	Waiting []WaitlistEntry
	Busy    map[int64]bool
	Taken   []int
	// OfferMinutes is the slot's schedule's offer time (0: default).
	OfferMinutes int
}

// Offer is the places given to an entry: one for each of PatientIDs on
// Queues (a single person's one, a party's consecutive numbers), PatientID
// on Queue first.
type Offer struct {
	EntryID    int64
	PatientID  int64
	Queue      int
	ExpiresAt  time.Time
	PatientIDs []int64
	Queues     []int
}

// takeLowest returns the lowest number not in taken and adds it there: an
// offered place's number.
func takeLowest(taken *[]int) int {
	q := 1
	for slices.Contains(*taken, q) {
		q++
	}
	*taken = append(*taken, q)
	return q
}

// singleOffer is the offer of one place on number q to entry e.
func singleOffer(e WaitlistEntry, q int, exp time.Time) Offer {
	return Offer{EntryID: e.ID, PatientID: e.PatientID, Queue: q, ExpiresAt: exp, PatientIDs: []int64{e.PatientID}, Queues: []int{q}}
}

// OfferDecision says what the job writes: one HELD appointment per Offer
// (key OfferKey), the entries to OFFERED; Return places go back to open
// booking (booked_count and offer_pending both down); the Ended entries
// (their patient is busy, or the period passed) become EntryFulfilled.
type OfferDecision struct {
	Offers []Offer
	Return int
	Ended  []int64
}

// OfferKey is the Idempotency-Key of an offer's appointment: unique per
// entry and slot, so a repeated job cannot offer one place twice.
func OfferKey(entryID, slotID int64) string {
	return fmt.Sprintf(offerKeyPrefix+"%d-slot-%d", entryID, slotID)
}

const offerKeyPrefix = "waitlist-"

// DecideOffers gives the slot's pending places to the earliest matching
// waiting entries, one per person, at now: a party gets its size in places,
// on consecutive free numbers where a run is free, or none when fewer are pending (or one of
// its people is already served, or offered in this run); the entries
// after it are served meanwhile.
func DecideOffers(rd OfferReads, now time.Time) OfferDecision {
	var d OfferDecision
	pending := rd.Slot.OfferPending
	if rd.Slot.Status != SlotOpen || !now.Before(rd.Slot.StartAt) {
		d.Return = pending
		return d
	}
	mins := rd.OfferMinutes
	if mins <= 0 {
		mins = DefaultOfferMinutes
	}
	exp := now.Add(time.Duration(mins) * time.Minute)
	if exp.After(rd.Slot.StartAt) {
		exp = rd.Slot.StartAt
	}
	taken := slices.Clone(rd.Taken)
	seen := map[int64]bool{}
	for _, e := range rd.Waiting {
		if pending == 0 {
			break
		}
		if e.State != EntryWaiting || !EntryMatches(e, rd.Slot, rd.Doctor) || seen[e.PatientID] {
			continue
		}
		if e.Size() > 1 {
			if o, ok := offerParty(e, rd, seen, pending, &taken); ok {
				o.ExpiresAt = exp
				d.Offers = append(d.Offers, o)
				pending -= e.Size()
			}
			continue
		}
		if rd.Busy[e.PatientID] {
			d.Ended = append(d.Ended, e.ID)
			continue
		}
		seen[e.PatientID] = true
		d.Offers = append(d.Offers, singleOffer(e, takeLowest(&taken), exp))
		pending--
	}
	d.Return = pending
	return d
}

// OfferAnswer is a patient's answer to an offer.
type OfferAnswer struct {
	EntryID   int64
	PatientID int64
	Accept    bool
}

// AnswerDecision says what the store writes for an answer: To is the
// offer appointment's new state ("" for none), with HoldExpiresAt when it
// stays HELD awaiting payment; Entry the entry's new state.
type AnswerDecision struct {
	To            Status
	HoldExpiresAt *time.Time
	Entry         string
	Notify        NotificationKind
}

// AnswerReads is what deciding an answer reads: the Entry (nil: none),
// its offer's Appointment (nil when it has none) and that one's Slot; for
// a party, Party holds every appointment of its offer (OfferKey of the
// entry and slot), Appointment's among them.
type AnswerReads struct {
	Entry       *WaitlistEntry
	Appointment *Appointment
	Slot        Slot
	Party       []Appointment
}

// DecideAnswer decides an answer to rd's entry at now: accepting a running
// offer books it (or keeps it HELD for payment when the slot has a fee);
// declining cancels it, which releases the place to the next entry.
func DecideAnswer(ans OfferAnswer, rd AnswerReads, now time.Time) (AnswerDecision, error) {
	e, a, sl := rd.Entry, rd.Appointment, rd.Slot
	switch {
	case e == nil || e.PatientID != ans.PatientID:
		return AnswerDecision{}, NotFound("waitlist entry")
	case e.State != EntryOffered || a == nil:
		return AnswerDecision{}, Errorf(CodeInvalidTransition, "the entry holds no offer (it is %s)", e.State)
	case a.Status != StatusHeld || a.HoldExpiresAt == nil || !now.Before(*a.HoldExpiresAt):
		return AnswerDecision{}, Errorf(CodeInvalidTransition, "the offer has expired")
	}
	if err := wholeParty(*e, rd.Party, now); err != nil && ans.Accept {
		return AnswerDecision{}, err
	}
	if !ans.Accept {
		return AnswerDecision{To: StatusCancelled, Entry: EntryDeclined}, nil
	}
	if sl.FeeCents > 0 {
		t := now.Add(time.Duration(sl.HoldSeconds) * time.Second)
		return AnswerDecision{HoldExpiresAt: &t, Entry: EntryAccepted}, nil
	}
	return AnswerDecision{To: StatusBooked, Entry: EntryAccepted, Notify: NotifyConfirmation}, nil
}

// LeaveDecision says what a patient's leaving of the waiting list writes.
// Answer is the entry the patient is answered with; Changed says it is
// written (its new state and time, the "leave" audit entry); CancelOffer
// says its running offer's HELD appointment is cancelled first, a place
// released like any other (it passes to the next entry waiting).
type LeaveDecision struct {
	Answer      WaitlistEntry
	Changed     bool
	CancelOffer bool
}

// DecideLeave decides patientID's leaving of entry e (nil: none) whose
// offer's appointment is a (nil: none) at now: another patient's entry is
// not found; an entry that has ended already is answered as it is, and
// nothing changes (leaving twice is leaving once); a live one becomes
// CANCELLED, out of the queue, and a running offer (its appointment still
// HELD, even past its deadline) is cancelled with it.
func DecideLeave(e *WaitlistEntry, a *Appointment, patientID int64, now time.Time) (LeaveDecision, error) {
	switch {
	case e == nil || e.PatientID != patientID:
		return LeaveDecision{}, NotFound("waitlist entry")
	case !e.Live():
		return LeaveDecision{Answer: *e}, nil
	}
	d := LeaveDecision{Answer: *e, Changed: true, CancelOffer: e.State == EntryOffered && a != nil && a.Status == StatusHeld}
	d.Answer.State, d.Answer.UpdatedAt, d.Answer.Position = EntryCancelled, now, 0
	return d, nil
}

// ReleasedEntryState is what an OFFERED entry becomes when its offer's
// appointment leaves HELD for `to`: accepted when booked, expired when it
// timed out, declined when cancelled.
func ReleasedEntryState(to Status) string {
	switch to {
	case StatusBooked:
		return EntryAccepted
	case StatusExpired:
		return EntryExpired
	}
	return EntryDeclined
}
