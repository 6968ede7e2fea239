package booking

import "time"

// What a release of places triggers. A transaction that moves appointments
// out of an active state (a cancel, the expiry sweep) has released their
// places; before it commits it applies these, decided here once for every
// store: the store reads, locks and writes, and decides none of it.

// Release is what the released appointments owe the waiting list: the
// OFFERED entries whose offers they were end (EndOffers: the entry state
// they take, ReleasedEntryState of the appointment's new state → the
// appointments' ids), and the places released per slot (Places) are kept
// for the entries waiting for them before open booking (ToReserve, per
// slot under its lock, and a NotifyOfferDue for each slot that keeps one).
type Release struct {
	EndOffers map[string][]int64
	Places    map[int64]int
}

// Released is the Release of appointments as, each in its new, inactive,
// state.
func Released(as []Appointment) Release {
	r := Release{EndOffers: map[string][]int64{}, Places: map[int64]int{}}
	for _, a := range as {
		st := ReleasedEntryState(a.Status)
		r.EndOffers[st] = append(r.EndOffers[st], a.ID)
		r.Places[a.SlotID]++
	}
	return r
}

// Expiry is what the expiry sweep's holds, just expired (HELD → EXPIRED,
// each place released by the same conditional update), trigger in the
// same transaction: one audit entry each ("expire", from HELD), one
// NotifyExpiry each, and their Release (an expired offer's entry ends
// EXPIRED; the places go to the waiting list first).
type Expiry struct {
	Audit   []AuditEntry
	Notify  []Notification
	Release Release
}

// DecideExpiry decides the effects of the holds expired (in their new
// state) by actor at now.
func DecideExpiry(actor Actor, expired []Appointment, now time.Time) Expiry {
	x := Expiry{Audit: make([]AuditEntry, len(expired)), Notify: make([]Notification, len(expired)), Release: Released(expired)}
	for i, a := range expired {
		x.Audit[i] = auditAppointment(actor, now, "expire", StatusHeld, a)
		x.Notify[i] = Notification{Kind: NotifyExpiry, AppointmentID: a.ID}
	}
	return x
}
