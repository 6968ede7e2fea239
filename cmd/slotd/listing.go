package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// runListing lists random doctors' days through booking.Reader, in process
// (no HTTP, no list cache): the day-listing latency of a database as large
// as `demo-data --doctors 20000` makes it (the scale figure, docs/performance.md).
func runListing(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("listing", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	lists := fs.Int("lists", 2000, "days to list, each a random doctor's random day")
	days := fs.Int("days", 14, "the days sampled, from today in each doctor's zone")
	seed := fs.Uint64("seed", 1, "random seed (the same seed lists the same days)")
	reads := fs.Int("reads", 200, "reads of each other kind: first available (all sites, one site), a department's doctor cards, a search")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *lists <= 0 || *days <= 0 || *reads < 0 {
		return fmt.Errorf("--lists and --days must be positive, --reads not negative")
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	sum, err := listDays(ctx, store, *lists, *days, rand.New(rand.NewPCG(*seed, *seed)), time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listing: %d days of %d doctors (%d slots each on average), in process: p50 %s  p90 %s  p99 %s  max %s\n",
		sum.lists, sum.doctors, sum.slots/sum.lists, sum.p(0.50), sum.p(0.90), sum.p(0.99), sum.took[len(sum.took)-1])
	if *reads == 0 {
		return nil
	}
	return catalogReads(ctx, store, catalogRun{n: *reads, rnd: rand.New(rand.NewPCG(*seed, *seed+1)), out: stdout})
}

// listingSummary is what listDays measured.
type listingSummary struct {
	lists, doctors, slots int
	took                  []time.Duration // sorted
}

// p is the q-quantile of the listings' durations (nearest rank).
func (s listingSummary) p(q float64) time.Duration {
	i := int(q*float64(len(s.took))+0.5) - 1
	return s.took[max(0, min(i, len(s.took)-1))].Round(time.Microsecond)
}

// listDays lists n random (doctor, day) pairs of the next days, one after
// the other, each as GET /api/doctors/{id}/slots?date=… reads it.
func listDays(ctx context.Context, r booking.Reader, n, days int, rnd *rand.Rand, now time.Time) (listingSummary, error) {
	doctors, err := r.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		return listingSummary{}, err
	}
	if len(doctors) == 0 {
		return listingSummary{}, fmt.Errorf("no doctors: run slotd demo-data first")
	}
	sum := listingSummary{lists: n, doctors: len(doctors), took: make([]time.Duration, 0, n)}
	zones := map[string]*time.Location{}
	for range n {
		d := doctors[rnd.IntN(len(doctors))]
		loc, ok := zones[d.TimeZone]
		if !ok {
			if loc, err = time.LoadLocation(d.TimeZone); err != nil {
				return sum, err
			}
			zones[d.TimeZone] = loc
		}
		from, to := schedule.DayBounds(schedule.DateOf(now, loc).AddDays(rnd.IntN(days)), loc)
		start := time.Now()
		slots, err := r.ListSlots(ctx, d.ID, from, to)
		sum.took = append(sum.took, time.Since(start))
		if err != nil {
			return sum, err
		}
		sum.slots += len(slots)
	}
	slices.Sort(sum.took)
	return sum, nil
}

// catalogRun is one run of catalogReads: n reads of each kind.
type catalogRun struct {
	n   int
	rnd *rand.Rand
	out io.Writer
}

// quantiles writes one figure's line: what was read, then p50/p90/p99/max.
func (c catalogRun) quantiles(what string, took []time.Duration) {
	slices.Sort(took)
	s := listingSummary{took: took}
	fmt.Fprintf(c.out, "%s, in process: p50 %s  p90 %s  p99 %s  max %s\n", what, s.p(0.50), s.p(0.90), s.p(0.99), took[len(took)-1].Round(time.Microsecond))
}

// catalogReads times the catalog's reads as the API and the pages make
// them, without HTTP or their caches: first available for a random
// service across all its doctors and at a random site (GET
// /api/availability?service=&site=), a random department's doctor cards
// with each doctor's next free time (the department page), and a search
// of a random prefix (GET /api/search?q=).
func catalogReads(ctx context.Context, r booking.Reader, c catalogRun) error {
	services, err := r.ListServices(ctx, booking.ServiceFilter{}, booking.Page{})
	if err != nil {
		return err
	}
	sites, err := r.ListSites(ctx, booking.Page{})
	if err != nil {
		return err
	}
	depts, err := r.ListDepartments(ctx, booking.Page{})
	if err != nil {
		return err
	}
	if len(services) > 0 {
		for _, perSite := range []bool{false, true} {
			took := make([]time.Duration, 0, c.n)
			var offered, slots, places, doctors int
			for range c.n {
				svc := services[c.rnd.IntN(len(services))]
				q := booking.OpenSlots{DoctorIDs: svc.DoctorIDs, Limit: booking.MaxAvailabilitySlots}
				if perSite {
					q.SiteID = sites[c.rnd.IntN(len(sites))].ID
				}
				start := time.Now()
				v, err := r.GetService(ctx, svc.ID)
				if err != nil {
					return err
				}
				now := time.Now()
				q.From, q.To = now, now.Add(booking.AvailabilityWindow)
				read, err := r.ListOpenSlots(ctx, q)
				if err != nil {
					return err
				}
				ps := booking.FreePlaces(v, read, now)
				took = append(took, time.Since(start))
				offered += len(v.DoctorIDs)
				slots += len(read)
				places += len(ps)
				doctors += len(booking.NextFree(read, now))
			}
			what := "first available, all sites"
			if perSite {
				what = fmt.Sprintf("first available, one site of %d", len(sites))
			}
			c.quantiles(fmt.Sprintf("%s: %d reads of %d services (%d doctors offer one on average; %d open slots read, of %d doctors, %d places found)",
				what, c.n, len(services), offered/c.n, slots/c.n, doctors/c.n, places/c.n), took)
		}
	}
	if len(depts) > 0 {
		took := make([]time.Duration, 0, c.n)
		var cards, timed int
		for range c.n {
			dep := depts[c.rnd.IntN(len(depts))]
			start := time.Now()
			docs, err := r.ListDoctors(ctx, dep.ID, booking.Page{})
			if err != nil {
				return err
			}
			ids := make([]int64, len(docs))
			for i, d := range docs {
				ids[i] = d.ID
			}
			now := time.Now()
			read, err := r.ListOpenSlots(ctx, booking.OpenSlots{DoctorIDs: ids, From: now, To: now.Add(booking.AvailabilityWindow),
				Limit: booking.MaxAvailabilitySlots})
			if err != nil {
				return err
			}
			next := booking.NextFree(read, now)
			took = append(took, time.Since(start))
			cards += len(docs)
			timed += len(next)
		}
		c.quantiles(fmt.Sprintf("doctor cards: %d reads of %d departments (%d cards on average, %d with a next free time)",
			c.n, len(depts), cards/c.n, timed/c.n), took)
	}
	took := make([]time.Duration, 0, c.n)
	var hits int
	for range c.n {
		q := searchPrefixes[c.rnd.IntN(len(searchPrefixes))]
		start := time.Now()
		h, err := r.Search(ctx, booking.SearchQuery{Prefix: q, Page: booking.Page{Limit: booking.DefaultPageLimit + 1}})
		took = append(took, time.Since(start))
		if err != nil {
			return err
		}
		hits += len(h)
	}
	c.quantiles(fmt.Sprintf("search: %d prefixes of %d (%d hits a page on average)", c.n, len(searchPrefixes), hits/c.n), took)
	return nil
}

// searchPrefixes are what patients type into the search box of a
// demo-data clinic: services and departments, doctors by first name, a
// whole doctor's name, and words that start no name.
var searchPrefixes = []string{"gen", "card", "Dermatology", "pae", "vacc", "Dr. Anh", "Dr. Li", "dr. wei nguyen 1",
	"Martin", "practice", "site 3", "zzz", "D", "o"}
