package booking

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func intp(v int) *int { return &v }

func TestAgeOn(t *testing.T) {
	day := time.Date(2026, 6, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		birth string
		age   int
		ok    bool
	}{{"1966-06-02", 60, true}, {"1966-06-03", 59, true}, {"1966-05-31", 60, true}, {"2000-02-29", 26, true}, {"", 0, false}, {"02/06/1966", 0, false}} {
		if age, ok := AgeOn(c.birth, day); age != c.age || ok != c.ok {
			t.Errorf("AgeOn(%q) = %d, %v; want %d, %v", c.birth, age, ok, c.age, c.ok)
		}
	}
}

func TestEligible(t *testing.T) {
	day := time.Date(2026, 6, 2, 10, 0, 0, 0, time.UTC)
	rule := &EligibilityRule{MinAge: intp(18), MaxAge: intp(64), Cohorts: []string{"health workers", "teachers"}}
	for _, c := range []struct {
		p    Person
		want Code
	}{
		{Person{BirthDate: "1980-01-01", Cohorts: []string{"teachers"}}, ""},
		{Person{BirthDate: "1950-01-01", Cohorts: []string{"teachers"}}, CodeNotEligible},
		{Person{BirthDate: "2015-01-01", Cohorts: []string{"teachers"}}, CodeNotEligible},
		{Person{Cohorts: []string{"teachers"}}, CodeNotEligible},
		{Person{BirthDate: "1980-01-01", Cohorts: []string{"65+"}}, CodeNotEligible},
		{Person{BirthDate: "1980-01-01"}, CodeNotEligible},
	} {
		got := Code("")
		if e := Eligible(rule, c.p, day); e != nil {
			got = e.Code
		}
		if got != c.want {
			t.Errorf("Eligible(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	if Eligible(nil, Person{}, day) != nil || Eligible(&EligibilityRule{}, Person{}, day) != nil {
		t.Error("no rule, or an empty one, refused someone")
	}
}

func TestEligibilityRuleCheck(t *testing.T) {
	until := t0
	for _, c := range []struct {
		r   EligibilityRule
		ptr string
	}{
		{EligibilityRule{MinAge: intp(-1)}, "/minAge"},
		{EligibilityRule{MaxAge: intp(151)}, "/maxAge"},
		{EligibilityRule{MinAge: intp(70), MaxAge: intp(60)}, "/maxAge"},
		{EligibilityRule{Cohorts: make([]string, 21)}, "/cohorts"},
		{EligibilityRule{Cohorts: []string{"ok", " padded"}}, "/cohorts"},
		{EligibilityRule{ReserveCohort: strings.Repeat("x", 51)}, "/cohorts"},
		{EligibilityRule{ReservePlaces: 2}, "/reserveUntil"},
		{EligibilityRule{ReservePlaces: -1}, "/reservePlaces"},
		{EligibilityRule{}, ""},
		{EligibilityRule{MinAge: intp(60), MaxAge: intp(60), Cohorts: []string{"65+"}, ReservePlaces: 2, ReserveUntil: &until}, ""},
	} {
		err := c.r.Check()
		e, _ := err.(*Error)
		if (c.ptr == "") != (err == nil) || (e != nil && e.Pointer != c.ptr) {
			t.Errorf("Check(%+v) = %v, want pointer %q", c.r, err, c.ptr)
		}
	}
}

func TestInvitationCodes(t *testing.T) {
	cs := NewInvitationCodes(200)
	seen := map[string]bool{}
	for _, c := range cs {
		if len(c) != InvitationCodeLen || strings.Trim(c, invitationAlphabet) != "" || seen[c] {
			t.Fatalf("code %q: not %d distinct characters of the alphabet", c, InvitationCodeLen)
		}
		seen[c] = true
		if NormalizeInvitation(strings.ToLower(c[:4])+"-"+c[4:8]+" "+c[8:]) != c {
			t.Fatalf("%q typed in groups and lower case is another code", c)
		}
	}
}

// The decision under a rule: refusals by the rule, an invitation used once
// per batch, the reserve held against others until its time.
func TestDecideBookingEligibility(t *testing.T) {
	until := t0.Add(30 * time.Minute) // the slot starts at t0+1h
	rule := &EligibilityRule{ScheduleID: 5, InvitationRequired: true}
	rd := BookReads{Found: true, Slot: openSlot(5, 0), Rule: rule,
		Invitations: map[string]Invitation{"A": {ScheduleID: 5}, "USED": {ScheduleID: 5, Used: true}, "OTHER": {ScheduleID: 6}}}
	reqs := []BookRequest{bookReq(1, "a"), bookReq(2, "b"), bookReq(3, "c"), bookReq(4, "d"), bookReq(5, "e")}
	for i, c := range []string{"A", "A", "USED", "OTHER", ""} {
		reqs[i].Invitation = c
	}
	d := DecideBooking(reqs, rd, t0)
	res, _ := d.Finish([]int64{100})
	if got := fmt.Sprint(codes(res)); got != "[ invitation-required invitation-required invitation-required invitation-required]" {
		t.Fatalf("codes %s", got)
	}
	if uses := d.InvitationsUsed([]int64{100}); len(uses) != 1 || uses[0] != (InvitationUse{Code: "A", AppointmentID: 100}) || d.InvitationCount() != 1 {
		t.Fatalf("uses %+v", uses)
	}

	// Reserve: 2 of 4 places for 65+ until `until`; 1 taken.
	rd = BookReads{Found: true, Slot: openSlot(4, 1), TopQueue: 1, Rule: &EligibilityRule{ScheduleID: 5, ReservePlaces: 2, ReserveCohort: "65+", ReserveUntil: &until},
		Persons: map[int64]Person{1: {}, 2: {}, 3: {Cohorts: []string{"65+"}}, 4: {Cohorts: []string{"65+"}}}}
	reqs = []BookRequest{bookReq(1, "a"), bookReq(2, "b"), bookReq(3, "c"), bookReq(4, "d")}
	res, _ = DecideBooking(reqs, rd, t0).Finish([]int64{100, 101, 102})
	if got := fmt.Sprint(codes(res)); got != "[ places-reserved  ]" {
		t.Fatalf("before the time: %s", got)
	}
	if e := res[1].Err.(*Error); e.OpensAt == nil || !e.OpensAt.Equal(until) {
		t.Fatalf("places-reserved without its time: %+v", e)
	}
	res, _ = DecideBooking(reqs[:2], rd, until).Finish([]int64{100, 101})
	if got := fmt.Sprint(codes(res)); got != "[ ]" {
		t.Fatalf("at the time: %s", got)
	}
	// A round's slot: the rule does not apply (the round governs).
	rd.Round, rd.Slot.RoundID = &Round{ID: 9, Quota: 5, OpensAt: t0.Add(-time.Hour), ClosesAt: t0.Add(time.Hour), State: "OPEN"}, 9
	rd.Rule = &EligibilityRule{ScheduleID: 5, InvitationRequired: true, ReservePlaces: 3, ReserveCohort: "65+", ReserveUntil: &until}
	if res, _ := DecideBooking(reqs[:1], rd, t0).Finish([]int64{100}); res[0].Err != nil {
		t.Fatalf("a round's slot: %v", res[0].Err)
	}
}

// A series' later dose was let in by its first dose's invitation: it needs
// no code, spends none (even a valid one it carries), and may take the
// places held for invitations; the age and cohort rule still applies.
func TestDecideBookingLaterDose(t *testing.T) {
	until := t0.Add(30 * time.Minute)
	rule := &EligibilityRule{ScheduleID: 5, InvitationRequired: true, MinAge: intp(18), ReservePlaces: 2, ReserveUntil: &until}
	rd := BookReads{Found: true, Slot: openSlot(2, 0), Rule: rule,
		Persons:     map[int64]Person{1: {BirthDate: "1980-01-01"}, 2: {BirthDate: "2020-01-01"}, 3: {BirthDate: "1980-01-01"}},
		Invitations: map[string]Invitation{"A": {ScheduleID: 5}}}
	reqs := []BookRequest{bookReq(1, "a"), bookReq(2, "b"), bookReq(3, "c")}
	reqs[0].LaterDose, reqs[0].Invitation = true, "A"
	reqs[1].LaterDose = true
	d := DecideBooking(reqs, rd, t0)
	res, _ := d.Finish([]int64{100})
	if got := fmt.Sprint(codes(res)); got != "[ not-eligible invitation-required]" {
		t.Fatalf("codes %s", got)
	}
	if uses := d.InvitationsUsed([]int64{100}); len(uses) != 0 {
		t.Fatalf("a later dose spent a code: %+v", uses)
	}
}

// The decision's cost per request with and without a rule (the store
// benchmarks add the reads: storetest.BenchEligibility).
func BenchmarkDecideEligibility(b *testing.B) {
	until := t0.Add(time.Hour)
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("rule=%v", on), func(b *testing.B) {
			rd := BookReads{Found: true, Slot: openSlot(1000, 0)}
			reqs := make([]BookRequest, 16)
			for i := range reqs {
				reqs[i] = bookReq(int64(i+1), "k")
			}
			if on {
				rd.Rule = &EligibilityRule{ScheduleID: 5, MinAge: intp(18), Cohorts: []string{"65+"}, InvitationRequired: true,
					ReservePlaces: 2, ReserveCohort: "65+", ReserveUntil: &until}
				rd.Persons, rd.Invitations = map[int64]Person{}, map[string]Invitation{}
				for i := range reqs {
					reqs[i].Invitation = fmt.Sprint("C", i)
					rd.Persons[reqs[i].PatientID] = Person{BirthDate: "1950-01-01", Cohorts: []string{"65+"}}
					rd.Invitations[reqs[i].Invitation] = Invitation{ScheduleID: 5}
				}
			}
			for b.Loop() {
				if d := DecideBooking(reqs, rd, t0); len(d.Winners) != len(reqs) {
					b.Fatal("refused")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/req")
		})
	}
}

// The listing and the booking agree: for every rule, person, time and
// number of places taken, PlacesFor says places > 0 exactly when a lone
// booking without an invitation is taken, and its reason is the code the
// booking is refused with (a full slot aside: 0 and no reason).
func TestPlacesForAgreesWithTheBooking(t *testing.T) {
	until := t0.Add(30 * time.Minute)
	rules := []*EligibilityRule{
		nil,
		{ScheduleID: 5, MinAge: intp(60)},
		{ScheduleID: 5, Cohorts: []string{"nurses"}},
		{ScheduleID: 5, InvitationRequired: true},
		{ScheduleID: 5, ReservePlaces: 2, ReserveCohort: "65+", ReserveUntil: &until},
		{ScheduleID: 5, ReservePlaces: 1, ReserveUntil: &until},
		{ScheduleID: 5, MinAge: intp(60), Cohorts: []string{"nurses"}, ReservePlaces: 3, ReserveCohort: "65+", ReserveUntil: &until},
	}
	persons := []Person{{}, {BirthDate: "1950-01-01"}, {BirthDate: "2000-01-01", Cohorts: []string{"nurses"}},
		{BirthDate: "1940-01-01", Cohorts: []string{"nurses", "65+"}}, {Cohorts: []string{"65+"}}}
	for ri, rule := range rules {
		for pi, p := range persons {
			for _, at := range []time.Time{t0, until} {
				for booked := 0; booked <= 4; booked++ {
					rd := BookReads{Found: true, Slot: openSlot(4, booked), TopQueue: booked, Rule: rule, Persons: map[int64]Person{1: p}}
					res, _ := DecideBooking([]BookRequest{bookReq(1, "a")}, rd, at).Finish([]int64{100})
					got := PlacesFor(RuleAsk{Rule: rule, Person: p, Start: rd.Slot.StartAt, Now: at}, 4-booked)
					code := ErrorCode(res[0].Err)
					ok := got.Places > 0 == (res[0].Err == nil) &&
						(got.Reason == code || got.Reason == "" && (code == "" || booked == 4))
					if !ok {
						t.Errorf("rule %d, person %d, at %v, %d booked: listing %+v, booking %v", ri, pi, at, booked, got, res[0].Err)
					}
				}
			}
		}
	}
}
