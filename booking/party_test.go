package booking

import (
	"slices"
	"testing"
	"time"
)

func partyEntry(id int64, ids ...int64) WaitlistEntry {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	e := WaitlistEntry{ID: id, PatientID: ids[0], DoctorID: 1, From: now, To: now.Add(48 * time.Hour), PartOfDay: PartAny, State: EntryWaiting}
	if len(ids) > 1 {
		e.PatientIDs, e.PartySize = ids, len(ids)
	}
	return e
}

func TestToReserveKeepsPlacesForAWholePartyOnly(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	sl := Slot{ID: 3, DoctorID: 1, StartAt: now.Add(time.Hour), Status: SlotOpen, Capacity: 5}
	party := partyEntry(1, 10, 11, 12)
	rd := func(booked, pending, released int, w ...WaitlistEntry) ReserveReads {
		s := sl
		s.BookedCount, s.OfferPending = booked, pending
		return ReserveReads{Slot: s, Doctor: Doctor{ID: 1}, Released: released, Waiting: w}
	}
	// One place free: a party of three is not served, nothing is kept.
	if k := ToReserve(rd(4, 0, 1, party), now); k != 0 {
		t.Fatalf("one place for a party of 3: kept %d", k)
	}
	// Three free (one just released): all three are kept for it.
	if k := ToReserve(rd(2, 0, 1, party), now); k != 3 {
		t.Fatalf("three free for a party of 3: kept %d", k)
	}
	// A single behind a party that does not fit gets the released place.
	if k := ToReserve(rd(4, 0, 1, party, partyEntry(2, 20)), now); k != 1 {
		t.Fatalf("single behind a party: kept %d", k)
	}
	// Singles alone: no more than the places released (as before parties).
	if k := ToReserve(rd(2, 0, 1, partyEntry(2, 20), partyEntry(3, 21)), now); k != 1 {
		t.Fatalf("singles: kept %d", k)
	}
	// Pending places already cover the party: nothing more.
	if k := ToReserve(rd(5, 3, 1, party), now); k != 0 {
		t.Fatalf("covered: kept %d", k)
	}
}

func TestDecideOffersGivesAPartyItsPlacesWholeOrNone(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	sl := Slot{ID: 3, DoctorID: 1, StartAt: now.Add(time.Hour), Status: SlotOpen, Capacity: 6, BookedCount: 6, OfferPending: 2}
	w := []WaitlistEntry{partyEntry(1, 10, 11, 12), partyEntry(2, 20)}
	d := DecideOffers(OfferReads{Slot: sl, Doctor: Doctor{ID: 1}, Waiting: w, Taken: []int{1, 3}}, now)
	if len(d.Offers) != 1 || d.Offers[0].EntryID != 2 || d.Return != 1 {
		t.Fatalf("two pending, a party of 3 first: %+v", d)
	}
	sl.OfferPending = 4
	d = DecideOffers(OfferReads{Slot: sl, Doctor: Doctor{ID: 1}, Waiting: w, Taken: []int{1, 3}}, now)
	if len(d.Offers) != 2 || d.Return != 0 {
		t.Fatalf("four pending: %+v", d)
	}
	o := d.Offers[0]
	if o.EntryID != 1 || !slices.Equal(o.PatientIDs, []int64{10, 11, 12}) || !slices.Equal(o.Queues, []int{4, 5, 6}) || o.Queue != 4 {
		t.Fatalf("the party's offer: %+v", o)
	}
	if d.Offers[1].Queue != 2 {
		t.Fatalf("the single's number: %+v", d.Offers[1])
	}
	// A member already served: the party is passed over (it keeps waiting).
	d = DecideOffers(OfferReads{Slot: sl, Doctor: Doctor{ID: 1}, Waiting: w, Busy: map[int64]bool{11: true}}, now)
	if len(d.Offers) != 1 || d.Offers[0].EntryID != 2 || len(d.Ended) != 0 || d.Return != 3 {
		t.Fatalf("busy member: %+v", d)
	}
}

func TestDecideAnswerAcceptsAPartyWholeOrNotAtAll(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	exp := now.Add(time.Minute)
	e := partyEntry(1, 10, 11)
	e.State = EntryOffered
	held := func(id, p int64) Appointment {
		return Appointment{ID: id, PatientID: p, Status: StatusHeld, HoldExpiresAt: &exp}
	}
	a := held(5, 10)
	rd := AnswerReads{Entry: &e, Appointment: &a, Party: []Appointment{a, held(6, 11)}}
	if d, err := DecideAnswer(OfferAnswer{EntryID: 1, PatientID: 10, Accept: true}, rd, now); err != nil || d.To != StatusBooked {
		t.Fatalf("%+v %v", d, err)
	}
	rd.Party[1].Status = StatusCancelled
	if _, err := DecideAnswer(OfferAnswer{EntryID: 1, PatientID: 10, Accept: true}, rd, now); ErrorCode(err) != CodeInvalidTransition {
		t.Fatalf("a member's place gone: %v", err)
	}
	if d, err := DecideAnswer(OfferAnswer{EntryID: 1, PatientID: 10}, rd, now); err != nil || d.To != StatusCancelled {
		t.Fatalf("a decline still releases the rest: %+v %v", d, err)
	}
	if got := HeldOf(rd.Party); len(got) != 1 || got[0].ID != 5 {
		t.Fatalf("held: %+v", got)
	}
}

func TestResolveParty(t *testing.T) {
	people := []Patient{{ID: 1, Active: true}, {ID: 2, Active: true}, {ID: 3, Active: false}, {ID: 4, Active: true}}
	if ids, err := ResolveParty(1, PartyAsk{PartySize: 3}, people); err != nil || !slices.Equal(ids, []int64{1, 2, 4}) {
		t.Fatalf("%v %v", ids, err)
	}
	if ids, err := ResolveParty(2, PartyAsk{PatientIDs: []int64{4, 1}}, people); err != nil || !slices.Equal(ids, []int64{2, 4, 1}) {
		t.Fatalf("%v %v", ids, err)
	}
	if ids, err := ResolveParty(2, PartyAsk{PartySize: 1}, people); err != nil || ids != nil {
		t.Fatalf("alone: %v %v", ids, err)
	}
	if _, err := ResolveParty(1, PartyAsk{PartySize: 4}, people); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("more than the account's active people: %v", err)
	}
	if _, err := ResolveParty(1, PartyAsk{PatientIDs: []int64{3}}, people); ErrorCode(err) != CodeNotFound {
		t.Fatalf("a removed person: %v", err)
	}
	if _, err := ResolveParty(1, PartyAsk{PatientIDs: []int64{99}}, people); ErrorCode(err) != CodeNotFound {
		t.Fatalf("another account's: %v", err)
	}
	if _, err := ResolveParty(1, PartyAsk{PartySize: 3, PatientIDs: []int64{2}}, people); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("size and ids disagree: %v", err)
	}
	if _, err := ResolveParty(1, PartyAsk{PartySize: MaxGroup + 1}, people); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("too big: %v", err)
	}
}

func TestCheckWaitlistEntryParty(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	e := partyEntry(0, 10, 11)
	single := partyEntry(0, 10)
	if err := CheckWaitlistEntry(&e, now); err != nil || e.PartySize != 2 {
		t.Fatalf("%v %+v", err, e)
	}
	if err := CheckWaitlistEntry(&single, now); err != nil || single.PartySize != 1 || e.Fingerprint == single.Fingerprint {
		t.Fatalf("%v %+v", err, single)
	}
	bad := partyEntry(0, 11, 10)
	bad.PatientID = 10
	if err := CheckWaitlistEntry(&bad, now); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("lead not first: %v", err)
	}
	unresolved := partyEntry(0, 10)
	unresolved.PartySize = 3
	if err := CheckWaitlistEntry(&unresolved, now); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("size without people: %v", err)
	}
}

func TestOfferPartyNumbersStayWithinCapacity(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	sl := Slot{ID: 3, DoctorID: 1, StartAt: now.Add(time.Hour), Status: SlotOpen, Capacity: 5, BookedCount: 5, OfferPending: 2}
	d := DecideOffers(OfferReads{Slot: sl, Doctor: Doctor{ID: 1}, Waiting: []WaitlistEntry{partyEntry(1, 10, 11)}, Taken: []int{1, 3, 5}}, now)
	if len(d.Offers) != 1 || !slices.Equal(d.Offers[0].Queues, []int{2, 4}) {
		t.Fatalf("scattered free numbers: %+v", d)
	}
}
