package service

import (
	"context"
	"maps"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/booking"
)

// An opening's fairness report (docs/clinic.md, "Fairness report"): the
// database's facts, and the requests this instance answered for the
// opening's slots, measured in bounded memory: at most maxTrackedOpenings
// openings, each a fixed histogram of answer times and a count per outcome
// (as many as there are problem codes). They are this instance's since it
// started: each instance reports its own.

// maxTrackedOpenings bounds the openings whose requests are measured; the
// oldest (lowest id) gives way.
const maxTrackedOpenings = 64

// Answer-time buckets: bucket i holds times up to latencyBase × latencyGrowth^i.
const (
	latencyBuckets = 80
	latencyBase    = 100 * time.Microsecond
	latencyGrowth  = 1.2
)

// openingKey names the slots of an opening as the gates know a slot.
type openingKey struct {
	scheduleID int64
	opensAt    int64 // unix nanoseconds
}

type requestStats struct {
	total    int64
	outcomes map[string]int64
	buckets  [latencyBuckets + 1]int64
}

// openingStats are the measured openings.
type openingStats struct {
	tracked atomic.Int32 // len(ids): the booking path's test, without a lock

	mu    sync.Mutex
	ids   map[openingKey]int64
	stats map[int64]*requestStats
}

// track starts measuring opening o's requests.
func (t *openingStats) track(o booking.Opening) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ids == nil {
		t.ids, t.stats = map[openingKey]int64{}, map[int64]*requestStats{}
	}
	k := openingKey{o.ScheduleID, o.OpensAt.UnixNano()}
	if _, ok := t.ids[k]; ok {
		return
	}
	if len(t.ids) >= maxTrackedOpenings {
		var oldK openingKey
		oldID := int64(math.MaxInt64)
		for k, id := range t.ids {
			if id < oldID {
				oldK, oldID = k, id
			}
		}
		delete(t.ids, oldK)
		delete(t.stats, oldID)
	}
	t.ids[k] = o.ID
	t.stats[o.ID] = &requestStats{outcomes: map[string]int64{}}
	t.tracked.Store(int32(len(t.ids)))
}

// record counts one answer for slot sl, when it is an opening's.
func (t *openingStats) record(sl booking.Slot, outcome string, took time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.ids[openingKey{sl.ScheduleID, sl.OpensAt.UnixNano()}]
	if !ok {
		return
	}
	st := t.stats[id]
	st.total++
	st.outcomes[outcome]++
	b := 0
	if took > latencyBase {
		b = min(latencyBuckets, int(math.Ceil(math.Log(float64(took)/float64(latencyBase))/math.Log(latencyGrowth))))
	}
	st.buckets[b]++
}

// snapshot is opening id's measured requests.
func (t *openingStats) snapshot(id int64) booking.RequestStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.stats[id]
	if st == nil {
		return booking.RequestStats{Outcomes: map[string]int64{}}
	}
	return booking.RequestStats{Total: st.total, Outcomes: maps.Clone(st.outcomes),
		P50Ms: quantileMs(st, 0.50), P99Ms: quantileMs(st, 0.99)}
}

// quantileMs is the upper bound of the bucket holding quantile q.
func quantileMs(st *requestStats, q float64) float64 {
	if st.total == 0 {
		return 0
	}
	want := int64(math.Ceil(q * float64(st.total)))
	var seen int64
	for i, n := range st.buckets {
		if seen += n; seen >= want {
			bound := float64(latencyBase) * math.Pow(latencyGrowth, float64(i))
			return math.Round(bound/float64(time.Millisecond)*1000) / 1000
		}
	}
	return 0
}

// recordOpening measures a booking's answer when its slot is an opening's;
// with no opening tracked it costs one atomic load.
func (s *Service) recordOpening(slotID int64, r booking.BookResult, start time.Time) {
	if s.openingStats.tracked.Load() == 0 {
		return
	}
	if sl, ok := s.gates.known(slotID); ok && sl.ScheduleID != 0 {
		s.openingStats.record(sl, outcomeOf(r), time.Since(start))
	}
}

// OpeningDraw is the opening's published draw of its pre-queue.
func (s *Service) OpeningDraw(ctx context.Context, id int64) (booking.Draw, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Draw, error) { return s.store.OpeningDraw(ctx, id) })
}

// OpeningReport is the opening's fairness report.
func (s *Service) OpeningReport(ctx context.Context, id int64) (booking.OpeningReport, error) {
	f, err := bounded(s, ctx, func(ctx context.Context) (booking.OpeningFacts, error) { return s.store.OpeningFacts(ctx, id) })
	if err != nil {
		return booking.OpeningReport{}, err
	}
	return f.Report(s.openingStats.snapshot(id)), nil
}

// summaryFor is how long a public summary is served from memory: anyone
// may ask, and a report reads every place of the opening.
const summaryFor = 10 * time.Second

// summaries caches the public summaries, at most maxTrackedOpenings.
type summaries struct {
	mu sync.Mutex
	m  map[int64]cachedSummary
}

type cachedSummary struct {
	s  booking.OpeningSummary
	at time.Time
}

// OpeningSummary is the public summary of the opening's fairness report,
// where the clinic's policy publishes it (else 404, as for no opening);
// it is at most summaryFor old.
func (s *Service) OpeningSummary(ctx context.Context, id int64) (booking.OpeningSummary, error) {
	pol, err := s.ClinicPolicy(ctx)
	if err != nil {
		return booking.OpeningSummary{}, err
	}
	if !pol.PublicOpeningSummary {
		return booking.OpeningSummary{}, booking.NotFound("opening")
	}
	now := time.Now()
	c := &s.summaries
	c.mu.Lock()
	got, ok := c.m[id]
	c.mu.Unlock()
	if ok && now.Sub(got.at) < summaryFor {
		return got.s, nil
	}
	rep, err := s.OpeningReport(ctx, id)
	if err != nil {
		return booking.OpeningSummary{}, err
	}
	sum := rep.Summary()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxTrackedOpenings {
		c.m = map[int64]cachedSummary{}
	}
	c.m[id] = cachedSummary{sum, now}
	c.mu.Unlock()
	return sum, nil
}
