package booking

import (
	"fmt"
	"iter"
	"time"
)

// The batch decision of Store.Book: a pure function of what a store read
// under the slot's lock. Each store reads, calls DecideBooking, writes what
// it says (the reclaim, the conditional update, the inserts, the quota) and
// answers with Finish; the decision is written once, here.

// PatientKey is a (patient, Idempotency-Key) pair, unique per appointment.
type PatientKey struct {
	PatientID int64
	Key       string
}

// StaleHold is a HELD appointment of the slot past its deadline.
type StaleHold struct {
	ID          int64
	PatientID   int64
	QueueNumber int
}

// BookReads is what a store reads for a batch, all under the slot's lock
// (each read after the lock is granted, so it sees what the previous
// holder committed).
type BookReads struct {
	// Found says the slot exists; Slot and Round (nil for an ordinary
	// slot) are its rows.
	Found bool
	Slot  Slot
	Round *Round
	// Existing are the appointments already made with the batch's
	// (patient, key) pairs.
	Existing map[PatientKey]Appointment
	// Missing are the batch's patients that do not exist. A store may
	// leave them to its foreign key instead (the batch then fails and its
	// requests are decided alone).
	Missing map[int64]bool
	// ActiveHere: the batch's patients holding an active appointment in
	// this slot; Overlapping: in another slot whose time overlaps it
	// (round allocations take no part in the overlap rule).
	ActiveHere, Overlapping map[int64]bool
	// Used counts the batch's patients' allocations in the slot's round.
	Used map[int64]int
	// Turns are the batch's patients' turns in the slot's round when it
	// is a lottery (a patient without one has no turn).
	Turns map[int64]Turn
	// TopQueue is the highest queue number in use (0 for none).
	TopQueue int
	// Stale are the slot's holds past their deadline at now, waitlist
	// offers aside: the expiry job ends those, so that they pass on.
	Stale []StaleHold
	// Policy is the slot's policy (its schedule's over the clinic's) and
	// Load what it needs of the batch's patients; both are ignored for a
	// round's slot, which its quota governs.
	Policy Policy
	Load   map[int64]PatientLoad
	// OpeningID is the announced opening the slot belongs to (its
	// schedule's, at its OpensAt), read with Policy; 0 for none. Its slots
	// take a patient's booking only with its admission.
	OpeningID int64
	// Waiting are the batch's patients' WAITING waitlist entries, and
	// Doctor the slot's doctor (read with them, for EntryMatches; needed
	// only when there are some).
	Waiting []WaitlistEntry
	Doctor  Doctor
	// Rule is the slot's schedule's eligibility rule (eligibility.go),
	// read with Policy; nil for none, when Persons and Invitations are not
	// read. Persons are the batch's patients' birth dates and cohorts
	// (read when Rule.NeedsPersons), Invitations the codes the batch
	// presents (when Rule.NeedsInvitations), by code.
	Rule        *EligibilityRule
	Persons     map[int64]Person
	Invitations map[string]Invitation
}

// BookDecision is the decision of a batch. The store performs it: when
// Reclaim, it expires exactly Stale (HELD → EXPIRED) and releases their
// places; it takes len(Winners) places by the conditional update, inserts
// one appointment per winner with Status, HoldExpiresAt and the numbers of
// Queue (QueueFrom first when Queue is nil), counts one allocation per
// winner in the round, and calls Finish with the new rows' ids.
type BookDecision struct {
	// Winners index the requests that get a place, in arrival order; they
	// are distinct patients.
	Winners []int
	// Queue holds the winners' queue numbers, or is nil when numbers below
	// the top may be free: the store then reads the numbers in use and
	// calls QueueFrom.
	Queue []int
	// Reclaim says the slot's stale holds are expired first (docs/reliability.md: more
	// takers than places).
	Reclaim bool
	Stale   []StaleHold
	// Status and HoldExpiresAt are what the new appointments get: HELD
	// until a deadline when the slot has a fee, else BOOKED.
	Status        Status
	HoldExpiresAt *time.Time
	// Fulfilled are the Waiting entries that a winner's new place matches:
	// the store ends them (WAITING → FULFILLED) in the same transaction, as
	// the patient has what they waited for.
	Fulfilled []int64

	slot    Slot
	full    bool // the winners took the last places (BookResult.SlotFull)
	group   bool // the batch is one group booking (wholeGroup)
	reqs    []BookRequest
	now     time.Time
	results []BookResult
	dupOf   map[int]int
	invited map[int]string // the invitation a winning request uses, by request
}

// ReplayOf answers a request whose (patient, key) already made a: the
// appointment as a replay when the request is the same, else key-reused.
func ReplayOf(a Appointment, r BookRequest) BookResult {
	if a.Fingerprint == r.Fingerprint {
		return BookResult{Appointment: a, Replayed: true}
	}
	return BookResult{Err: KeyReused(a.SlotID)}
}

// KeyReused is the refusal of a known (patient, Idempotency-Key) sent with
// another request, for a booking or a round application alike.
func KeyReused(slotID int64) *Error {
	return &Error{Code: CodeKeyReused, Message: "this Idempotency-Key was already used for a different request", SlotID: slotID}
}

// SlotRefusal tells why the slot takes no booking at all at now, fullness
// aside (that is decided request by request), or nil. A round's clock and
// state come first: a closed round is closed even before its opening time.
func SlotRefusal(slot Slot, round *Round, now time.Time) *Error {
	if round != nil {
		if e := round.Refusal(now, slot.ID); e != nil {
			return e
		}
	}
	open := slot
	open.BookedCount = 0
	if err := open.Bookable(now); err != nil {
		return err.(*Error)
	}
	return nil
}

// DecideBooking decides reqs, all for one slot, from rd. Each request is
// answered, in this order of precedence: a replay (or key-reused) of the
// appointment its key made; the slot not found; the slot refusing as a
// whole (round, status, window); the patient not found; already booked
// here; an overlapping appointment; the slot's policy (deactivated
// patient, no-show block, caps: PolicyRefusal); the round's quota used up; the
// schedule's eligibility rule (not-eligible, invitation-required: eligibility.go);
// and then, in arrival order, a place while places are left (places-reserved when
// only the rule's reserve is left and it holds against the request), else slot-full. A
// patient's later request waits on the earlier: already booked when that
// one gets a place, else full like it. A repeated (patient, key) in the
// batch gets its first request's outcome, as a retry just after it would.
// When more requests are eligible than places are free and the slot has
// stale holds, they are reclaimed and the batch is decided as if the expiry
// job had already released them (their patients no longer hold a place,
// their quota is given back).
func DecideBooking(reqs []BookRequest, rd BookReads, now time.Time) *BookDecision {
	d := &BookDecision{slot: rd.Slot, reqs: reqs, now: now, results: make([]BookResult, len(reqs)),
		dupOf: map[int]int{}, Status: StatusBooked}
	if !rd.Found {
		for i := range d.results {
			d.results[i].Err = NotFound("slot")
		}
		return d
	}
	if rd.Slot.FeeCents > 0 {
		d.Status = StatusHeld
		t := now.Add(time.Duration(rd.Slot.HoldSeconds) * time.Second)
		d.HoldExpiresAt = &t
	}
	closed := SlotRefusal(rd.Slot, rd.Round, now)

	// Requests answered whatever the places; the rest are pending.
	first := make(map[PatientKey]int, len(reqs))
	var pending []int
	for i, r := range reqs {
		k := PatientKey{r.PatientID, r.IdempotencyKey}
		if a, ok := rd.Existing[k]; ok {
			d.results[i] = ReplayOf(a, r)
			continue
		}
		if j, ok := first[k]; ok {
			d.dupOf[i] = j
			continue
		}
		first[k] = i
		if closed != nil {
			c := *closed
			d.results[i].Err = &c
			continue
		}
		pending = append(pending, i)
	}

	free := rd.Slot.Capacity - rd.Slot.BookedCount
	short := d.place(rd, pending, free, nil)
	if short && len(rd.Stale) > 0 {
		d.Reclaim, d.Stale = true, rd.Stale
		freed := map[int64]bool{}
		for _, h := range rd.Stale {
			freed[h.PatientID] = true
		}
		free += len(rd.Stale)
		d.place(rd, pending, free, freed)
	}
	for i, r := range d.results {
		if r.Replayed && d.Reclaim {
			// A replay read before the reclaim may name a hold it expires:
			// answer it as it will be.
			for _, h := range d.Stale {
				if h.ID == r.Appointment.ID {
					d.results[i].Appointment.Status, d.results[i].Appointment.UpdatedAt = StatusExpired, now
				}
			}
		}
	}
	if len(reqs) > 0 && reqs[0].Group {
		d.wholeGroup()
	}
	// Behind a waiting room or in a round, a request's refusal turns on
	// its admission, turn or quota before the places, which the gates do
	// not see: there they learn fullness from a slot-full refusal only.
	d.full = free-len(d.Winners) <= 0 && rd.OpeningID == 0 && rd.Round == nil
	if !d.Reclaim && rd.TopQueue == rd.Slot.BookedCount && rd.TopQueue+len(d.Winners) <= rd.Slot.Capacity {
		// The numbers in use are exactly 1..top (distinct, within the
		// capacity, as many as the counter): the free ones follow it.
		d.Queue = make([]int, len(d.Winners))
		for k := range d.Queue {
			d.Queue[k] = rd.TopQueue + 1 + k
		}
	}
	d.Fulfilled = d.fulfilled(rd)
	return d
}

// fulfilled are the waiting entries of the winners that a place in this
// slot matches.
func (d *BookDecision) fulfilled(rd BookReads) []int64 {
	if len(rd.Waiting) == 0 || len(d.Winners) == 0 {
		return nil
	}
	won := make(map[int64]bool, len(d.Winners))
	for _, i := range d.Winners {
		won[d.reqs[i].PatientID] = true
	}
	var ended []int64
	for _, e := range rd.Waiting {
		if won[e.PatientID] && EntryMatches(e, rd.Slot, rd.Doctor) {
			ended = append(ended, e.ID)
		}
	}
	return ended
}

// place answers the pending requests given free places; freed are the
// patients whose stale hold here is reclaimed. It reports whether an
// eligible request found no place.
func (d *BookDecision) place(rd BookReads, pending []int, free int, freed map[int64]bool) (short bool) {
	slotID := rd.Slot.ID
	d.Winners = d.Winners[:0]
	if rd.Round != nil {
		rd.Rule = nil // a round's quota governs its slots, not a campaign's rule
	}
	var given map[string]bool // the invitations this batch's winners use
	if rd.Rule.usesInvitation() {
		d.invited, given = map[int]string{}, map[string]bool{}
	}
	won := map[int64]bool{}
	for _, i := range pending {
		p := d.reqs[i].PatientID
		ruleErr, invited, held := d.eligibility(rd, i, given)
		used := rd.Used[p]
		if freed[p] && used > 0 {
			used-- // the reclaimed hold's allocation is given back
		}
		policy := PolicyCheck{Policy: rd.Policy, Load: rd.Load[p], Staff: d.reqs[i].Staff, Freed: freed[p], SlotID: slotID}
		var err *Error
		switch {
		case rd.Missing[p]:
			err = NotFound("patient")
		case rd.ActiveHere[p] && !freed[p], won[p]:
			err = ConstraintError(ConSlotPatientActive, slotID)
		case rd.Overlapping[p]:
			err = ConstraintError(ConNoOverlap, slotID)
		case rd.Load[p].Inactive:
			err = InactiveRefusal(slotID)
		case rd.Round == nil && admissionRefusal(rd.OpeningID, d.reqs[i], slotID) != nil:
			err = admissionRefusal(rd.OpeningID, d.reqs[i], slotID)
		case rd.Round == nil && PolicyRefusal(policy, d.now) != nil:
			err = PolicyRefusal(policy, d.now)
		case rd.Round != nil && rd.Round.Lottery != nil && turnRefusal(rd.Turns, p, slotID, d.now) != nil:
			err = turnRefusal(rd.Turns, p, slotID, d.now)
		case rd.Round != nil && used >= rd.Round.Quota:
			// One slot per batch and one place per patient: the count read
			// is all the batch can add to.
			err = QuotaError(slotID, rd.Round.Quota)
		case ruleErr != nil:
			err = ruleErr
		case len(d.Winners) < free && len(d.Winners) >= free-held:
			// Not slot-full: the slot is not full for everyone, and the
			// gates must not learn that it is.
			err = ReservedError(rd.Rule, slotID)
			short = true
		case len(d.Winners) < free:
			won[p] = true
			d.Winners = append(d.Winners, i)
			d.results[i] = BookResult{}
			if invited && rd.Rule.usesInvitation() {
				given[d.reqs[i].Invitation] = true
				d.invited[i] = d.reqs[i].Invitation
			}
			continue
		default:
			err = ConstraintError(ConSlotCapacity, slotID)
			short = true
		}
		d.results[i] = BookResult{Err: err}
	}
	return short
}

// eligibility is request i's refusal under the slot's rule (nil when it
// may book or there is no rule), whether it holds a valid invitation
// this batch has not given yet, and how many places the reserve holds
// against it (DecideRule).
func (d *BookDecision) eligibility(rd BookReads, i int, given map[string]bool) (*Error, bool, int) {
	if rd.Rule == nil {
		return nil, false, 0
	}
	r := d.reqs[i]
	invited := !r.LaterDose && invitationOK(rd.Rule, r.Invitation, rd.Invitations, given)
	e, held := DecideRule(RuleAsk{Rule: rd.Rule, Person: rd.Persons[r.PatientID], Invited: invited, LaterDose: r.LaterDose,
		Start: d.slot.StartAt, Now: d.now})
	if e != nil {
		e.SlotID = d.slot.ID
		return e, e.Code != CodeInvitationRequired && invited, 0
	}
	return nil, invited, held
}

// QueueFrom finds the winners' queue numbers, the lowest free ones in
// 1..capacity, from taken: the numbers in use in ascending order (a
// reclaimed hold's number counts as free whether or not it is still
// listed). It stops reading taken as soon as it has enough. Fewer free
// numbers than winners means the counter is corrupt: it refuses rather
// than guesses, and reconciliation repairs it.
func (d *BookDecision) QueueFrom(taken iter.Seq[int]) error {
	n := len(d.Winners)
	released := map[int]bool{}
	if d.Reclaim {
		for _, h := range d.Stale {
			released[h.QueueNumber] = true
		}
	}
	if d.group {
		return d.queueBlock(taken, released)
	}
	free := make([]int, 0, n)
	next := 1 // the lowest number not yet known to be taken
	for used := range taken {
		if len(free) >= n {
			break
		}
		if released[used] {
			continue
		}
		for ; next < used && len(free) < n; next++ {
			free = append(free, next)
		}
		next = max(next, used+1)
	}
	for ; next <= d.slot.Capacity && len(free) < n; next++ {
		free = append(free, next)
	}
	if len(free) < n {
		return fmt.Errorf("booking: slot %d: booked_count %d of %d but only %d free queue numbers",
			d.slot.ID, d.slot.BookedCount, d.slot.Capacity, len(free))
	}
	d.Queue = free
	return nil
}

// Appointment is the new appointment of the k-th winner, as inserted, with
// id once the store knows it.
func (d *BookDecision) Appointment(k int, id int64) Appointment {
	r, s := d.reqs[d.Winners[k]], d.slot
	return Appointment{ID: id, SlotID: s.ID, DoctorID: s.DoctorID, PatientID: r.PatientID, Status: d.Status,
		QueueNumber: d.Queue[k], StartAt: s.StartAt, EndAt: s.EndAt, HoldExpiresAt: d.HoldExpiresAt,
		CreatedAt: d.now, UpdatedAt: d.now, IdempotencyKey: r.IdempotencyKey, Fingerprint: r.Fingerprint,
		RoundID: s.RoundID}
}

// Finish answers every request once the store has written the decision:
// ids[k] is the id of the k-th winner's new appointment. It returns the
// answers in order and the notifications the change announces (the
// reclaimed holds' expiries and the new BOOKED appointments'
// confirmations; a HELD one is told nothing until it is paid), for the
// store to enqueue in the same transaction.
func (d *BookDecision) Finish(ids []int64) ([]BookResult, []Notification) {
	var ns []Notification
	if d.Reclaim {
		for _, h := range d.Stale {
			ns = append(ns, Notification{Kind: NotifyExpiry, AppointmentID: h.ID})
		}
	}
	for k, i := range d.Winners {
		a := d.Appointment(k, ids[k])
		d.results[i] = BookResult{Appointment: a, SlotFull: d.full}
		if a.Status == StatusBooked {
			ns = append(ns, Notification{Kind: NotifyConfirmation, AppointmentID: a.ID})
		}
	}
	for i := range d.reqs {
		j, ok := d.dupOf[i]
		if !ok {
			continue
		}
		switch first := d.results[j]; {
		case first.Err != nil:
			d.results[i].Err = copyError(first.Err)
		default:
			d.results[i] = ReplayOf(first.Appointment, d.reqs[i])
		}
	}
	return d.results, ns
}

// copyError gives each answer its own *Error.
func copyError(err error) error {
	if e, ok := err.(*Error); ok {
		c := *e
		return &c
	}
	return err
}

// DecideAlone answers reqs one at a time through one, after a constraint
// refused their batch (a race with a transaction on another slot): each
// request in a transaction of its own, answered by the constraint that
// fired. A repeated (patient, key) gets its first request's outcome.
func DecideAlone(reqs []BookRequest, one func(BookRequest) (BookResult, error)) ([]BookResult, error) {
	out := make([]BookResult, len(reqs))
	first := make(map[PatientKey]int, len(reqs))
	for i, r := range reqs {
		k := PatientKey{r.PatientID, r.IdempotencyKey}
		if j, ok := first[k]; ok {
			if out[j].Err != nil {
				out[i].Err = copyError(out[j].Err)
			} else {
				out[i] = ReplayOf(out[j].Appointment, r)
			}
			continue
		}
		first[k] = i
		res, err := one(r)
		if err != nil {
			return nil, err
		}
		out[i] = res
	}
	return out, nil
}

// turnRefusal is TurnRefusal for patient p with the turns read.
func turnRefusal(turns map[int64]Turn, p, slotID int64, now time.Time) *Error {
	if t, ok := turns[p]; ok {
		return TurnRefusal(&t, slotID, now)
	}
	return TurnRefusal(nil, slotID, now)
}
