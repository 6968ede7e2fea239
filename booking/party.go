package booking

import (
	"slices"
	"time"
)

// Parties on the waiting list (docs/campaigns.md): a household waits
// together. An entry of PartySize k (its people PatientIDs, of one
// account) is offered only when k places are free in a matching slot; the
// offer is k HELD appointments, one per person, on consecutive numbers,
// sharing the key OfferKey(entry, slot); accepting books them all or none
// (wholeParty, as a group booking is decided whole); declining, leaving
// or the deadline releases them all.

// Size is how many places e waits for: 1 for one person.
func (e WaitlistEntry) Size() int { return max(1, e.PartySize, len(e.PatientIDs)) }

// PartyAsk is a join's party as a front end gives it: PartySize people
// (0 or 1: the person alone) or the people named (PatientIDs, the
// person joining among them or not).
type PartyAsk struct {
	PartySize  int
	PatientIDs []int64
}

// ResolveParty decides the people of lead's entry from ask and people,
// the lead's account and the persons it manages (the account first, as
// Store.People lists them): nil for one person; else lead first then the
// people named (each of the account, active, once), or, given a size
// only, lead and the account's next people in id order. A party is at
// most MaxGroup people and at most the account's people.
func ResolveParty(lead int64, ask PartyAsk, people []Patient) ([]int64, error) {
	size := max(ask.PartySize, 1)
	if len(ask.PatientIDs) > 0 {
		ids := []int64{lead}
		for _, p := range ask.PatientIDs {
			if p != lead && !slices.Contains(ids, p) {
				ids = append(ids, p)
			}
		}
		if ask.PartySize > 0 && ask.PartySize != len(ids) {
			return nil, Errorf(CodeInvalidRequest, "partySize must be the number of patientIds (%d)", len(ids))
		}
		size = len(ids)
		if size > MaxGroup {
			return nil, Errorf(CodeInvalidRequest, "a party is at most %d people", MaxGroup)
		}
		for _, id := range ids {
			if !slices.ContainsFunc(people, func(p Patient) bool { return p.ID == id && p.Active && p.ErasedAt == nil }) {
				return nil, NotFound("patient")
			}
		}
		if size == 1 {
			return nil, nil
		}
		return ids, nil
	}
	if size == 1 {
		return nil, nil
	}
	if size > MaxGroup {
		return nil, Errorf(CodeInvalidRequest, "a party is at most %d people", MaxGroup)
	}
	ids := []int64{lead}
	for _, p := range people {
		if len(ids) == size {
			break
		}
		if p.ID != lead && p.Active && p.ErasedAt == nil {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) < size {
		return nil, Errorf(CodeInvalidRequest, "the account has %d people: a party of %d cannot wait", len(ids), size)
	}
	return ids, nil
}

// need is what the waiting entries of a slot ask of it: places, and
// whether a party is among the entries counted.
type need struct {
	places int
	party  bool
}

// partyNeed counts, in request order, the places the waiting entries
// matching sl need within budget (the pending and free places): an entry
// that does not fit whole in what is left is passed over, as DecideOffers
// will pass it over, and the ones after it counted.
func partyNeed(waiting []WaitlistEntry, sl Slot, d Doctor, budget int) need {
	var n need
	for _, e := range waiting {
		if e.State != EntryWaiting || !EntryMatches(e, sl, d) || n.places+e.Size() > budget {
			continue
		}
		n.places += e.Size()
		n.party = n.party || e.Size() > 1
	}
	return n
}

// offerParty offers party e its places when pending covers them and none
// of its people is served (busy) or offered already (seen): on the lowest
// run of consecutive numbers free in taken (which it extends) within the
// slot's capacity, or, when the free numbers are scattered, on the lowest
// free ones (a place is a place: the party is not refused for its
// numbers); ok false leaves the party waiting.
func offerParty(e WaitlistEntry, rd OfferReads, seen map[int64]bool, pending int, taken *[]int) (Offer, bool) {
	k := e.Size()
	if k > pending || len(e.PatientIDs) != k {
		return Offer{}, false
	}
	for _, p := range e.PatientIDs {
		if rd.Busy[p] || seen[p] {
			return Offer{}, false
		}
	}
	start := 1 // the run measured; a taken number moves it past itself
	for q := start; q < start+k; q++ {
		if slices.Contains(*taken, q) {
			start = q + 1
		}
	}
	qs := make([]int, 0, k)
	if start+k-1 <= rd.Slot.Capacity {
		for i := range k {
			qs = append(qs, start+i)
		}
	} else {
		for q := 1; len(qs) < k; q++ {
			if !slices.Contains(*taken, q) {
				qs = append(qs, q)
			}
		}
	}
	o := Offer{EntryID: e.ID, PatientID: e.PatientID, Queue: qs[0], PatientIDs: slices.Clone(e.PatientIDs), Queues: qs}
	*taken = append(*taken, qs...)
	for _, p := range e.PatientIDs {
		seen[p] = true
	}
	return o, true
}

// wholeParty refuses to accept a party's offer unless every one of its
// places is still held (all or nothing): a member's place cancelled or
// expired meanwhile refuses them all, and the offer is released whole by
// its deadline or a decline.
func wholeParty(e WaitlistEntry, party []Appointment, now time.Time) error {
	if e.Size() == 1 {
		return nil
	}
	if len(party) != e.Size() {
		return Errorf(CodeInvalidTransition, "the party's offer is no longer whole")
	}
	for _, a := range party {
		if a.Status != StatusHeld || a.HoldExpiresAt == nil || !now.Before(*a.HoldExpiresAt) {
			return Errorf(CodeInvalidTransition, "the party's offer is no longer whole")
		}
	}
	return nil
}

// HeldOf is the appointments of an offer that are still HELD: what a
// decline or a leave cancels (each a place released).
func HeldOf(party []Appointment) []Appointment {
	var out []Appointment
	for _, a := range party {
		if a.Status == StatusHeld {
			out = append(out, a)
		}
	}
	return out
}

// OfferPlaces is every appointment of an offer whose lead's is a: party
// (offerAppointments' read) for a party, else a alone.
func OfferPlaces(a Appointment, party []Appointment) []Appointment {
	if len(party) == 0 {
		return []Appointment{a}
	}
	return party
}

// Offered is how many places d's offers hold: a party's one per person.
func (d OfferDecision) Offered() int {
	n := 0
	for _, o := range d.Offers {
		n += max(1, len(o.PatientIDs))
	}
	return n
}
