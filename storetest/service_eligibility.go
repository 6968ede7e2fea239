package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A service's eligibility rule (booking.ServiceRule): every visit of the
// service passes it, and its slot's schedule rule too.

// testServiceEligibility: a service's rule refuses the ineligible (age,
// cohort), admits the eligible, combines with a schedule's rule (both
// must pass), and its own path: set, read, removed, audited, not found.
func testServiceEligibility(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Vaccination", 15, f.doctor.ID)
	if r, err := s.ServiceEligibility(f.ctx, v.ID); err != nil || r != nil {
		t.Fatalf("no rule yet: %+v, %v", r, err)
	}
	rule, err := s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: v.ID, MinAge: ints(18), MaxAge: ints(64),
		Cohorts: []string{"nurses", "teachers"}}, false, now)
	must(t, err)
	if got, err := s.ServiceEligibility(f.ctx, v.ID); err != nil || got == nil || *got.MinAge != 18 || *got.MaxAge != 64 ||
		len(got.Cohorts) != 2 || !got.UpdatedAt.Equal(rule.UpdatedAt) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	other2 := f.service("Boosters", 15, f.doctor.ID)
	_, err = s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: other2.ID, MinAge: ints(65)}, false, now)
	must(t, err)
	all, err := s.ListServiceEligibility(f.ctx, booking.Page{})
	must(t, err)
	if len(all) != 2 || all[0].ServiceID != v.ID || *all[0].MaxAge != 64 || all[1].ServiceID != other2.ID || *all[1].MinAge != 65 ||
		all[1].MaxAge != nil || len(all[0].Cohorts) != 2 {
		t.Fatalf("list: %+v", all)
	}
	if page, err := s.ListServiceEligibility(f.ctx, booking.Page{After: v.ID, Limit: 1}); err != nil || len(page) != 1 || page[0].ServiceID != other2.ID {
		t.Fatalf("second page: %+v, %v", page, err)
	}
	nurse, teacher, other, child, unknown := f.born("1980-01-01"), f.born("1990-06-01"), f.born("1980-01-01"), f.born("2020-01-01"), f.patient()
	f.tag("nurses", nurse, child, unknown)
	f.tag("teachers", teacher)
	sls := f.run(6, 1, 15*time.Minute)
	refusedWith(t, "untagged", f.visit(visitReq(other, v, sls[0].ID, "k")).Err, booking.CodeNotEligible)
	refusedWith(t, "a child", f.visit(visitReq(child, v, sls[0].ID, "k")).Err, booking.CodeNotEligible)
	refusedWith(t, "no birth date", f.visit(visitReq(unknown, v, sls[0].ID, "k")).Err, booking.CodeNotEligible)
	wantCounters(t, f.counters(sls[:1]), 0)
	wantCode(t, f.visit(visitReq(nurse, v, sls[0].ID, "k")).Err, "")
	wantCode(t, f.visit(visitReq(teacher, v, sls[1].ID, "k")).Err, "")
	// A plain booking names no service: the service's rule is not its.
	wantCode(t, f.book(sls[2].ID, req(other, sls[2].ID, "plain")).Err, "")

	// With a schedule's rule on the slot too, both must pass.
	_, in := f.campaign(booking.EligibilityRule{MaxAge: ints(40)})
	camp := f.run(2, 1, 15*time.Minute, in)
	refusedWith(t, "over the schedule's age", f.visit(visitReq(nurse, v, camp[0].ID, "c")).Err, booking.CodeNotEligible)
	wantCode(t, f.visit(visitReq(teacher, v, camp[0].ID, "c")).Err, "")
	// A schedule that needs invitations refuses a visit: it presents none.
	_, inv := f.campaign(booking.EligibilityRule{InvitationRequired: true})
	coded := f.run(1, 1, 15*time.Minute, inv)
	refusedWith(t, "without a code", f.visit(visitReq(teacher, v, coded[0].ID, "i")).Err, booking.CodeInvitationRequired)

	// Removed, the service is for everyone again.
	_, err = s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: v.ID}, true, now)
	must(t, err)
	if r, err := s.ServiceEligibility(f.ctx, v.ID); err != nil || r != nil {
		t.Fatalf("removed: %+v, %v", r, err)
	}
	wantCode(t, f.visit(visitReq(other, v, sls[3].ID, "k2")).Err, "")
	// Removing again changes nothing and records nothing.
	_, err = s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: v.ID}, true, now)
	must(t, err)
	if es := auditOf(t, s, booking.EntityServiceEligibility, v.ID); len(es) != 2 || es[0].Action == es[1].Action {
		t.Fatalf("audit: %+v", es)
	}
	if _, err := s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: 1 << 40}, false, now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("unknown service: %v", err)
	}
	checkInvariants(t, h, s)
	reconciled(t, s)
}

// testRaceServiceEligibility: visits of a service with a rule, released
// at once: nobody outside the rule gets a place, whatever the order, and
// the eligible fill the places and no more.
func testRaceServiceEligibility(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	v := f.service("Vaccination", 15, f.doctor.ID)
	_, err := s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: v.ID, MinAge: ints(18), Cohorts: []string{"nurses"}}, false, now)
	must(t, err)
	const capacity, nurses, others, kids = 4, 10, 6, 6
	sl := f.run(1, capacity, 15*time.Minute)[0]
	var ps []booking.Patient
	for range nurses + others {
		ps = append(ps, f.born("1980-01-01"))
	}
	for range kids {
		ps = append(ps, f.born("2020-01-01"))
	}
	f.tag("nurses", ps[:nurses]...)
	f.tag("nurses", ps[nurses+others:]...) // tagged, but too young
	var mu sync.Mutex
	won := 0
	release(len(ps), func(i int) {
		res, err := s.BookVisit(f.ctx, visitReq(ps[i], v, sl.ID, "race"), now)
		if err != nil {
			t.Errorf("visit %d: %v", i, err)
			return
		}
		c := booking.ErrorCode(res.Err)
		switch {
		case i >= nurses && c != booking.CodeNotEligible:
			t.Errorf("ineligible %d: %v", i, res.Err)
		case i < nurses && c == "":
			mu.Lock()
			won++
			mu.Unlock()
		case i < nurses && c != booking.CodeSlotFull:
			t.Errorf("nurse %d: %v", i, res.Err)
		}
	})
	if won != capacity {
		t.Fatalf("%d nurses won, want %d", won, capacity)
	}
	wantCounters(t, f.counters([]booking.Slot{sl}), capacity)
	checkInvariants(t, h, s)
	reconciled(t, s)
}
