package storetest

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// BenchEligibility measures Store.Book deciding one request per call (a
// place of its own small slot) in a schedule without a rule ("off") and in
// one whose rule asks for everything (an age range, a cohort and an
// invitation: "on", the persons' and invitations' reads made), reporting
// the CPU time per request. Setup (slots, patients, tags, codes) is not
// timed.
func BenchEligibility(b *testing.B, newStore func(testing.TB) booking.Store) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("rule=%v", map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
			s := newStore(b)
			f := newFixture(b, s)
			rule := booking.EligibilityRule{}
			if on {
				rule = booking.EligibilityRule{MinAge: ints(18), MaxAge: ints(120), Cohorts: []string{"65+"}, InvitationRequired: true}
			}
			rule, in := f.campaign(rule)
			if !on {
				_, err := s.SetEligibility(f.ctx, rule, true, now)
				must(b, err)
			}
			slots := make([]booking.Slot, b.N)
			ps := make([]booking.Patient, b.N)
			for i := range slots {
				slots[i] = f.slot(1, in)
				ps[i] = f.born("1950-01-01")
			}
			f.tag("65+", ps...)
			codes := f.invitations(rule, b.N)
			b.ResetTimer()
			cpu := cpuTime()
			for i := range b.N {
				r := invited(ps[i], slots[i].ID, "k", codes[i])
				res, err := s.Book(f.ctx, slots[i].ID, []booking.BookRequest{r}, now)
				if err != nil || res[0].Err != nil {
					b.Fatal(err, res[0].Err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/req")
		})
	}
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchServiceEligibility measures Store.BookVisit of one request per
// call (a 15-minute service, a slot of its own) for a service without a
// rule ("off") and with one asking an age range and a cohort ("on": the
// rule read with the service, the patient read), reporting the CPU time
// per request. Setup is not timed.
func BenchServiceEligibility(b *testing.B, newStore func(testing.TB) booking.Store) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("rule=%v", map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
			s := newStore(b)
			f := newFixture(b, s)
			v := f.service("Vaccination", 15, f.doctor.ID)
			if on {
				_, err := s.SetServiceEligibility(f.ctx, booking.ServiceRule{ServiceID: v.ID, MinAge: ints(18), MaxAge: ints(120),
					Cohorts: []string{"65+"}}, false, now)
				must(b, err)
			}
			slots := f.run(b.N, 1, 15*time.Minute)
			ps := make([]booking.Patient, b.N)
			for i := range ps {
				ps[i] = f.born("1950-01-01")
			}
			f.tag("65+", ps...)
			b.ResetTimer()
			cpu := cpuTime()
			for i := range b.N {
				res, err := s.BookVisit(f.ctx, visitReq(ps[i], v, slots[i].ID, "k"), now)
				if err != nil || res.Err != nil {
					b.Fatal(err, res.Err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/req")
		})
	}
}

// BenchListingRules measures ListingRules, the personal part of a slot
// listing, over a day of 16 slots: none with a rule ("none": one index
// read, nothing of the person), all with an invitation reserve ("rules":
// the rules' read only) and all with a cohort rule ("person": the rules
// and the person read).
func BenchListingRules(b *testing.B, newStore func(testing.TB) booking.Store) {
	until := now.Add(time.Hour)
	for _, c := range []struct {
		name string
		rule *booking.EligibilityRule
	}{{"none", nil}, {"rules", &booking.EligibilityRule{ReservePlaces: 1, ReserveUntil: &until}},
		{"person", &booking.EligibilityRule{MinAge: ints(18), Cohorts: []string{"65+"}}}} {
		b.Run(c.name, func(b *testing.B) {
			s := newStore(b)
			f := newFixture(b, s)
			var opts []slotOpt
			if c.rule != nil {
				_, in := f.campaign(*c.rule)
				opts = append(opts, in)
			}
			ids := make([]int64, 16)
			for k := range ids {
				ids[k] = f.slot(4, opts...).ID
			}
			p := f.born("1950-01-01")
			f.tag("65+", p)
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				if _, err := s.ListingRules(f.ctx, p.ID, ids); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/req")
		})
	}
}
