package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// campaign makes a schedule with rule (its ScheduleID set here) and
// returns it with a slot option putting a slot in it.
func (f *fixture) campaign(rule booking.EligibilityRule) (booking.EligibilityRule, slotOpt) {
	f.t.Helper()
	h := 6 + f.campaigns.Add(1) // a doctor's schedules must not overlap
	sc, err := f.s.CreateSchedule(f.ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Tuesday},
		StartTime: fmt.Sprintf("%02d:00", h), EndTime: fmt.Sprintf("%02d:00", h+1), SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(f.t, err)
	rule.ScheduleID = sc.ID
	rule, err = f.s.SetEligibility(f.ctx, rule, false, now)
	must(f.t, err)
	return rule, func(sl *booking.Slot) { sl.ScheduleID = sc.ID }
}

// born makes a patient born on date.
func (f *fixture) born(date string) booking.Patient {
	f.t.Helper()
	p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "Patient", Phone: fmt.Sprintf("+336%08d", phones.Add(1)), BirthDate: date})
	must(f.t, err)
	return p
}

// tag gives ps the cohort tag.
func (f *fixture) tag(tag string, ps ...booking.Patient) {
	f.t.Helper()
	rows := make([]booking.CohortRow, len(ps))
	for k, p := range ps {
		rows[k] = booking.CohortRow{PatientID: p.ID, Tag: tag}
	}
	_, err := f.s.ImportCohorts(f.ctx, rows, now)
	must(f.t, err)
}

// invitations makes n codes for rule's schedule.
func (f *fixture) invitations(rule booking.EligibilityRule, n int) []string {
	f.t.Helper()
	codes := booking.NewInvitationCodes(n)
	must(f.t, f.s.CreateInvitations(f.ctx, rule.ScheduleID, codes, now))
	return codes
}

func invited(p booking.Patient, slotID int64, key, code string) booking.BookRequest {
	r := req(p, slotID, key)
	r.Invitation = code
	return r
}

func refusedWith(t testing.TB, what string, err error, code booking.Code) {
	t.Helper()
	if booking.ErrorCode(err) != code {
		t.Fatalf("%s: %v, want %s", what, err, code)
	}
}

func ints(v int) *int { return &v }

// Every refusal of a campaign's rule, on single, group and series
// bookings, and the rule's, cohorts' and invitations' own paths.
func testEligibility(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)

	// Age: 60 and over on the slot's day (it is in June 2026).
	age, inAge := f.campaign(booking.EligibilityRule{MinAge: ints(60)})
	if got, err := s.Eligibility(f.ctx, age.ScheduleID); err != nil || got == nil || *got.MinAge != 60 || got.MaxAge != nil {
		t.Fatalf("Eligibility = %+v, %v", got, err)
	}
	sl := f.slot(5, inAge)
	old, young, turning := f.born("1950-01-01"), f.born("2000-01-01"), f.born("1966-06-03")
	unknown := f.patient() // no birth date: not known to be eligible
	if r := f.book(sl.ID, req(old, sl.ID, "a")); r.Err != nil {
		t.Fatalf("an eligible patient: %v", r.Err)
	}
	refusedWith(t, "too young", f.book(sl.ID, req(young, sl.ID, "a")).Err, booking.CodeNotEligible)
	refusedWith(t, "no birth date", f.book(sl.ID, req(unknown, sl.ID, "a")).Err, booking.CodeNotEligible)
	// 60 two days after the slot's day: not yet.
	refusedWith(t, "59 on the day", f.book(sl.ID, req(turning, sl.ID, "a")).Err, booking.CodeNotEligible)
	if f.getSlot(sl.ID).BookedCount != 1 {
		t.Fatal("a refusal took a place")
	}
	// A group is refused whole when one member is outside the rule.
	wantGroupRefused(t, f.bookGroup(sl.ID, "g", f.born("1940-05-05"), young), booking.CodeNotEligible)
	// A series is refused whole when one dose's schedule refuses.
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	free := f.slot(2, startsAt(day1))
	ruled := f.slot(2, startsAt(day1.Add(22*24*time.Hour)), inAge)
	_, err := f.bookSeries(ds, young, "s", free.ID, ruled.ID)
	refusedWith(t, "a series with a dose outside the rule", err, booking.CodeNotEligible)
	if _, err := f.bookSeries(ds, old, "s", free.ID, ruled.ID); err != nil {
		t.Fatalf("an eligible series: %v", err)
	}
	if n := activeOf(t, h, s, young.ID); n != 0 {
		t.Fatalf("the refused patient holds %d places", n)
	}

	// Cohorts: one of the rule's tags.
	co, inCo := f.campaign(booking.EligibilityRule{Cohorts: []string{"health workers", "65+"}})
	csl := f.slot(5, inCo)
	nurse, other := f.patient(), f.patient()
	f.tag("health workers", nurse)
	f.tag("teachers", other)
	if r := f.book(csl.ID, req(nurse, csl.ID, "c")); r.Err != nil {
		t.Fatalf("a member of the cohort: %v", r.Err)
	}
	refusedWith(t, "another cohort", f.book(csl.ID, req(other, csl.ID, "c")).Err, booking.CodeNotEligible)
	// An import adds only what is new; an unknown patient refuses it whole.
	if n, err := s.ImportCohorts(f.ctx, []booking.CohortRow{{PatientID: nurse.ID, Tag: "health workers"}, {PatientID: other.ID, Tag: "65+"}}, now); err != nil || n != 1 {
		t.Fatalf("ImportCohorts = %d, %v; want 1 new row", n, err)
	}
	if _, err := s.ImportCohorts(f.ctx, []booking.CohortRow{{PatientID: young.ID, Tag: "65+"}, {PatientID: 1 << 40, Tag: "65+"}}, now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("an import naming no patient: %v", err)
	}
	refusedWith(t, "a row of a refused import", f.book(csl.ID, req(young, csl.ID, "c")).Err, booking.CodeNotEligible)
	if r := f.book(csl.ID, req(other, csl.ID, "c2")); r.Err != nil {
		t.Fatalf("a patient tagged 65+ by the import: %v", r.Err)
	}
	_ = co
	// An erasure ends the person's tags: tagged again, the tag is new.
	if _, err := s.ErasePatient(f.ctx, booking.Erasure{PatientID: nurse.ID, Reason: "asked", At: now}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ImportCohorts(f.ctx, []booking.CohortRow{{PatientID: nurse.ID, Tag: "health workers"}}, now); err != nil || n != 1 {
		t.Fatalf("the erased patient's tag was kept: %d new, %v", n, err)
	}

	// Invitations: single use, for their own schedule, given back by a cancel.
	inv, inInv := f.campaign(booking.EligibilityRule{InvitationRequired: true})
	isl := f.slot(5, inInv)
	codes := f.invitations(inv, 3)
	foreign := f.invitations(age, 1)[0]
	p1, p2, p3 := f.patient(), f.patient(), f.patient()
	refusedWith(t, "no code", f.book(isl.ID, req(p1, isl.ID, "i")).Err, booking.CodeInvitationRequired)
	refusedWith(t, "an unknown code", f.book(isl.ID, invited(p1, isl.ID, "i", "NOTACODE2345")).Err, booking.CodeInvitationRequired)
	refusedWith(t, "another schedule's code", f.book(isl.ID, invited(p1, isl.ID, "i", foreign)).Err, booking.CodeInvitationRequired)
	first := f.book(isl.ID, invited(p1, isl.ID, "i", codes[0]))
	if first.Err != nil {
		t.Fatalf("a valid code: %v", first.Err)
	}
	refusedWith(t, "a used code", f.book(isl.ID, invited(p2, isl.ID, "i", codes[0])).Err, booking.CodeInvitationRequired)
	// One code twice in one batch: the first request uses it.
	res, err := s.Book(f.ctx, isl.ID, []booking.BookRequest{invited(p2, isl.ID, "j", codes[1]), invited(p3, isl.ID, "j", codes[1])}, now)
	must(t, err)
	if res[0].Err != nil || booking.ErrorCode(res[1].Err) != booking.CodeInvitationRequired {
		t.Fatalf("one code twice in a batch: %v, %v", res[0].Err, res[1].Err)
	}
	// A cancelled booking gives its code back.
	if _, err := s.Cancel(f.ctx, first.Appointment.ID, 0, now); err != nil {
		t.Fatal(err)
	}
	if r := f.book(isl.ID, invited(p3, isl.ID, "k", codes[0])); r.Err != nil {
		t.Fatalf("the code a cancel gave back: %v", r.Err)
	}
	// A group needs a code per member.
	g1, g2 := f.patient(), f.patient()
	grp := booking.Group{SlotID: isl.ID, PatientIDs: []int64{g1.ID, g2.ID}, Key: "gi", Invitations: []string{codes[2]}}
	gres, err := s.BookGroup(f.ctx, isl.ID, grp.Requests(), now)
	must(t, err)
	wantGroupRefused(t, gres, booking.CodeInvitationRequired)
	more := f.invitations(inv, 1)
	grp.Invitations, grp.Key = []string{codes[2], more[0]}, "gi2"
	gres, err = s.BookGroup(f.ctx, isl.ID, grp.Requests(), now)
	must(t, err)
	if gres[0].Err != nil || gres[1].Err != nil {
		t.Fatalf("a group with a code each: %v, %v", gres[0].Err, gres[1].Err)
	}

	// The rule's own paths: an unknown schedule, a removal.
	if _, err := s.SetEligibility(f.ctx, booking.EligibilityRule{ScheduleID: 1 << 40}, false, now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("a rule for no schedule: %v", err)
	}
	if err := s.CreateInvitations(f.ctx, 1<<40, booking.NewInvitationCodes(1), now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("invitations for no schedule: %v", err)
	}
	if _, err := s.SetEligibility(f.ctx, age, true, now); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Eligibility(f.ctx, age.ScheduleID); err != nil || got != nil {
		t.Fatalf("a removed rule reads %+v, %v", got, err)
	}
	if r := f.book(sl.ID, req(young, sl.ID, "after")); r.Err != nil {
		t.Fatalf("the rule removed: %v", r.Err)
	}
	if es := auditOf(t, s, booking.EntityEligibility, age.ScheduleID); len(es) != 2 || es[0].Action != "delete" {
		t.Fatalf("the rule's audit: %+v", es)
	}
	if es := auditOf(t, s, booking.EntityInvitations, inv.ScheduleID); len(es) != 2 {
		t.Fatalf("the invitations' audit: %+v", es)
	}
	checkInvariants(t, h, s)
}

// Single, group and series bookings race for a campaign's last places,
// the last two held for a cohort until an hour from now, beside children
// the rule refuses: no oversell, nobody outside the rule, the reserve not
// taken by others before its time and open to them after.
func testRaceEligibility(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	until := now.Add(time.Hour)
	_, in := f.campaign(booking.EligibilityRule{MinAge: ints(18), ReservePlaces: 2, ReserveCohort: "65+", ReserveUntil: &until})
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	sl := f.slot(7, startsAt(day1), in)
	second := f.slot(20, startsAt(day1.Add(22*24*time.Hour)))
	const adults, groups, series, children = 8, 2, 4, 4
	var ps []booking.Patient
	for range adults + 2*groups + series {
		ps = append(ps, f.born("1980-01-01"))
	}
	senior := f.born("1950-01-01") // the cohort's one contender
	f.tag("65+", senior)
	var kids []booking.Patient
	for range children {
		kids = append(kids, f.born("2020-01-01"))
	}
	var mu sync.Mutex
	general := 0 // places taken by others than the cohort
	var o outcomes
	release(adults+groups+series+children+1, func(i int) {
		switch {
		case i < adults:
			r := f.book(sl.ID, req(ps[i], sl.ID, "r"))
			o.add(r)
			if r.Err == nil {
				mu.Lock()
				general++
				mu.Unlock()
			} else if c := booking.ErrorCode(r.Err); c != booking.CodeSlotFull && c != booking.CodePlacesReserved {
				t.Errorf("adult %d: %v", i, r.Err)
			}
		case i < adults+groups:
			k := adults + 2*(i-adults)
			res := f.bookGroup(sl.ID, "g", ps[k], ps[k+1])
			if res[0].Err == nil {
				mu.Lock()
				general += 2
				mu.Unlock()
				return
			}
			if c := booking.ErrorCode(res[0].Err); c != booking.CodeSlotFull && c != booking.CodePlacesReserved {
				t.Errorf("group: %v", res[0].Err)
			}
			wantGroupRefused(t, res, booking.ErrorCode(res[0].Err))
		case i < adults+groups+series:
			p := ps[adults+2*groups+i-adults-groups]
			if _, err := f.bookSeries(ds, p, "s", sl.ID, second.ID); err == nil {
				mu.Lock()
				general++
				mu.Unlock()
			} else if c := booking.ErrorCode(err); c != booking.CodeSlotFull && c != booking.CodePlacesReserved {
				t.Errorf("series: %v", err)
			}
		case i < adults+groups+series+children:
			k := kids[i-adults-groups-series]
			refusedWith(t, "a child", f.book(sl.ID, req(k, sl.ID, "r")).Err, booking.CodeNotEligible)
		default:
			if r := f.book(sl.ID, req(senior, sl.ID, "r")); r.Err != nil {
				t.Errorf("the cohort's member: %v", r.Err)
			}
		}
	})
	// The reserve is the slot's last two places: others stop at five
	// taken, four when the senior came first.
	if general < 4 || general > 5 {
		t.Fatalf("others took %d places, want 4 or 5 (the reserve is 2 of 7)", general)
	}
	if got := f.getSlot(sl.ID).BookedCount; got != general+1 {
		t.Fatalf("counter %d, want %d (others and the senior)", got, general+1)
	}
	for _, k := range kids {
		if activeOf(t, h, s, k.ID) != 0 {
			t.Fatal("a child outside the rule holds a place")
		}
	}
	late := f.born("1985-01-01")
	refusedWith(t, "the reserve before its time", f.book(sl.ID, req(late, sl.ID, "late")).Err, booking.CodePlacesReserved)
	if r := f.bookAt(sl.ID, req(late, sl.ID, "late2"), until); r.Err != nil {
		t.Fatalf("the reserve at its time: %v", r.Err)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}

// One invitation code presented by many racing bookings (single bookings
// of two slots of its schedule, groups, series): exactly one uses it.
func testRaceInvitation(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	rule, in := f.campaign(booking.EligibilityRule{InvitationRequired: true})
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	a := f.slot(10, startsAt(day1), in)
	b := f.slot(10, startsAt(day1.Add(2*time.Hour)), in)
	second := f.slot(20, startsAt(day1.Add(22*24*time.Hour)))
	code := f.invitations(rule, 1)[0]
	const n = 12
	ps := f.patients(n + 4)
	var mu sync.Mutex
	won := 0
	release(n, func(i int) {
		var err error
		switch i % 4 {
		case 0, 1:
			slot := []int64{a.ID, b.ID}[i%2]
			err = f.book(slot, invited(ps[i], slot, "x", code)).Err
		case 2:
			g := booking.Group{SlotID: a.ID, PatientIDs: []int64{ps[i].ID}, Key: "gx", Invitations: []string{code}}
			var res []booking.BookResult
			res, err = s.BookGroup(f.ctx, a.ID, g.Requests(), now)
			must(t, err)
			err = res[0].Err
		default:
			_, err = s.BookSeries(f.ctx, booking.SeriesRequest{PatientID: ps[i].ID, SeriesID: ds.ID, SlotIDs: []int64{b.ID, second.ID},
				IdempotencyKey: "sx", Fingerprint: booking.SeriesFingerprint(ds.ID, []int64{b.ID, second.ID}), Invitation: code}, now)
		}
		switch {
		case err == nil:
			mu.Lock()
			won++
			mu.Unlock()
		case booking.ErrorCode(err) != booking.CodeInvitationRequired:
			t.Errorf("request %d: %v", i, err)
		}
	})
	if won != 1 {
		t.Fatalf("%d bookings used one invitation", won)
	}
	if got := f.getSlot(a.ID).BookedCount + f.getSlot(b.ID).BookedCount; got != 1 {
		t.Fatalf("%d places taken with one invitation", got)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}

// A series on an invitation-only schedule is let in by one code: its first
// dose spends it, its second (booked with it or later) needs none, and a
// series without a code is refused whole.
func testInvitedSeries(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	rule, in := f.campaign(booking.EligibilityRule{InvitationRequired: true})
	ds := f.seriesOf()
	day1 := now.Add(48 * time.Hour)
	d1 := f.slot(5, startsAt(day1), in)
	d2 := f.slot(5, startsAt(day1.Add(22*24*time.Hour)), in)
	codes := f.invitations(rule, 2)
	p, q, r := f.patient(), f.patient(), f.patient()
	_, err := f.bookSeries(ds, r, "s", d1.ID, d2.ID)
	refusedWith(t, "a series without a code", err, booking.CodeInvitationRequired)
	both, err := s.BookSeries(f.ctx, booking.SeriesRequest{PatientID: p.ID, SeriesID: ds.ID, SlotIDs: []int64{d1.ID, d2.ID},
		IdempotencyKey: "s", Fingerprint: booking.SeriesFingerprint(ds.ID, []int64{d1.ID, d2.ID}), Invitation: codes[0]}, now)
	if err != nil || len(both.Booking.Appointments) != 2 {
		t.Fatalf("a whole series with its code: %+v, %v", both, err)
	}
	// The code is spent: another series with it is refused.
	_, err = s.BookSeries(f.ctx, booking.SeriesRequest{PatientID: q.ID, SeriesID: ds.ID, SlotIDs: []int64{d1.ID},
		IdempotencyKey: "s", Fingerprint: booking.SeriesFingerprint(ds.ID, []int64{d1.ID}), Invitation: codes[0]}, now)
	refusedWith(t, "a spent code", err, booking.CodeInvitationRequired)
	// Dose 1 alone with the other code, dose 2 later without one.
	one, err := s.BookSeries(f.ctx, booking.SeriesRequest{PatientID: q.ID, SeriesID: ds.ID, SlotIDs: []int64{d1.ID},
		IdempotencyKey: "s1", Fingerprint: booking.SeriesFingerprint(ds.ID, []int64{d1.ID}), Invitation: codes[1]}, now)
	must(t, err)
	if _, err := f.nextDose(q, one.Booking.ID, d2.ID, "n", now); err != nil {
		t.Fatalf("the next dose of an invited series: %v", err)
	}
	if got := f.getSlot(d1.ID).BookedCount + f.getSlot(d2.ID).BookedCount; got != 4 {
		t.Fatalf("%d places taken, want 4", got)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}

// What a person's listing answers (booking.ListingReads.PlacesOf, from
// ListingRules): 60 and over, two of three places reserved for "priority"
// for an hour. An eligible person takes one place before the reserve's
// time and all after, one of the reserve's cohort all, a young one none
// (not-eligible), anyone none of an invitation-only slot
// (invitation-required); a slot without a rule is absent; once the free
// places are the reserve's, an eligible person outside it gets
// places-reserved with the reserve's end.
func testListingForPerson(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	until := now.Add(time.Hour)
	_, inRule := f.campaign(booking.EligibilityRule{MinAge: ints(60), ReservePlaces: 2, ReserveCohort: "priority", ReserveUntil: &until})
	_, inInvited := f.campaign(booking.EligibilityRule{InvitationRequired: true})
	sl, inv, plain := f.slot(3, inRule), f.slot(2, inInvited), f.slot(2)
	old, prio, young := f.born("1950-01-01"), f.born("1940-01-01"), f.born("2000-01-01")
	f.tag("priority", prio)
	ids := []int64{sl.ID, inv.ID, plain.ID}
	answer := func(p booking.Patient, slotID int64, at time.Time) *booking.PersonalPlaces {
		t.Helper()
		rd, err := s.ListingRules(f.ctx, p.ID, ids)
		must(t, err)
		return rd.PlacesOf(slotID, at)
	}
	want := func(who string, got *booking.PersonalPlaces, n int, reason booking.Code) {
		t.Helper()
		if got == nil || got.Places != n || got.Reason != reason {
			t.Fatalf("%s: %+v, want %d %q", who, got, n, reason)
		}
	}
	want("eligible, before the reserve's time", answer(old, sl.ID, now), 1, "")
	want("eligible, after the reserve's time", answer(old, sl.ID, until), 3, "")
	want("of the reserve's cohort", answer(prio, sl.ID, now), 3, "")
	want("too young", answer(young, sl.ID, now), 0, booking.CodeNotEligible)
	want("too young, after the reserve's time", answer(young, sl.ID, until), 0, booking.CodeNotEligible)
	want("an invitation-only slot", answer(old, inv.ID, now), 0, booking.CodeInvitationRequired)
	if got := answer(old, plain.ID, now); got != nil {
		t.Fatalf("a slot without a rule answers %+v", got)
	}
	// The listing and the booking decide alike: the eligible person books
	// the one place outside the reserve, then is told it is reserved.
	if r := f.book(sl.ID, req(old, sl.ID, "l1")); r.Err != nil {
		t.Fatal(r.Err)
	}
	got := answer(young, sl.ID, now)
	want("too young, the reserve's places left", got, 0, booking.CodeNotEligible)
	got = answer(f.born("1951-01-01"), sl.ID, now)
	want("eligible, the reserve's places left", got, 0, booking.CodePlacesReserved)
	if got.OpensAt == nil || !got.OpensAt.Equal(until) {
		t.Fatalf("places-reserved opens at %v, want %v", got.OpensAt, until)
	}
	refusedWith(t, "the booking of the same person", f.book(sl.ID, req(f.born("1952-01-01"), sl.ID, "l2")).Err, booking.CodePlacesReserved)
	want("of the reserve's cohort, the reserve's places left", answer(prio, sl.ID, now), 2, "")
	want("eligible, after the reserve's time, two left", answer(old, sl.ID, until), 2, "")
}
