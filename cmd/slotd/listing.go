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
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *lists <= 0 || *days <= 0 {
		return fmt.Errorf("--lists and --days must be positive")
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
	return nil
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
