package rush

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// BucketWidth is the resolution of the time series: fine enough to see the
// first second of a rush, coarse enough to hold a few hundred samples each.
const BucketWidth = 100 * time.Millisecond

// Histogram ranges, in microseconds. Totals keep 3 significant digits; the
// per-bucket histograms keep 2, which is plenty for a p99 line and keeps a
// 30 s run at a few megabytes.
const (
	histMin       = 1
	histMax       = 120_000_000 // two minutes: longer than any --timeout
	histDigits    = 3
	bucketDigits  = 2
	maxSeriesSpan = 30 * time.Minute // guards the series against a stuck clock
)

// Recorder collects latencies per endpoint and outcome, and a time series
// per BucketWidth. It is safe for concurrent use; each endpoint has its own
// lock so that reads and bookings do not contend.
type Recorder struct {
	start time.Time
	eps   [numEndpoints]epRecorder
}

type epRecorder struct {
	mu      sync.Mutex
	all     *hdr.Histogram
	byOut   [numOutcomes]*hdr.Histogram // allocated on first use
	counts  [numOutcomes]int64
	buckets []bucket
}

// bucket is one BucketWidth of one endpoint.
type bucket struct {
	h      *hdr.Histogram
	counts [numOutcomes]int32
}

// NewRecorder returns a Recorder whose time series starts at start.
func NewRecorder(start time.Time) *Recorder {
	r := &Recorder{start: start}
	for i := range r.eps {
		r.eps[i].all = hdr.New(histMin, histMax, histDigits)
	}
	return r
}

// Start is the origin of the time series.
func (r *Recorder) Start() time.Time { return r.start }

// Record notes one exchange that started at began and took lat.
func (r *Recorder) Record(ep Endpoint, out Outcome, began time.Time, lat time.Duration) {
	us := lat.Microseconds()
	if us < histMin {
		us = histMin
	}
	if us > histMax {
		us = histMax
	}
	// Bucketed by start time: a latency spike then shows where the load
	// that caused it was sent, not seconds later when it finally answered.
	idx := -1
	if off := began.Sub(r.start); off >= 0 && off < maxSeriesSpan {
		idx = int(off / BucketWidth)
	}
	e := &r.eps[ep]
	e.mu.Lock()
	_ = e.all.RecordValue(us)
	h := e.byOut[out]
	if h == nil {
		h = hdr.New(histMin, histMax, histDigits)
		e.byOut[out] = h
	}
	_ = h.RecordValue(us)
	e.counts[out]++
	if idx >= 0 {
		for len(e.buckets) <= idx {
			e.buckets = append(e.buckets, bucket{})
		}
		b := &e.buckets[idx]
		if b.h == nil {
			b.h = hdr.New(histMin, histMax, bucketDigits)
		}
		_ = b.h.RecordValue(us)
		b.counts[out]++
	}
	e.mu.Unlock()
}

// Counts returns a copy of an endpoint's outcome counts so far.
func (r *Recorder) Counts(ep Endpoint) [numOutcomes]int64 {
	e := &r.eps[ep]
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.counts
}

// Latency is a latency summary in milliseconds.
type Latency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50Ms"`
	P95   float64 `json:"p95Ms"`
	P99   float64 `json:"p99Ms"`
	P999  float64 `json:"p999Ms"`
	Max   float64 `json:"maxMs"`
	Mean  float64 `json:"meanMs"`
}

func latencyOf(h *hdr.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		Count: h.TotalCount(),
		P50:   ms(h.ValueAtQuantile(50)),
		P95:   ms(h.ValueAtQuantile(95)),
		P99:   ms(h.ValueAtQuantile(99)),
		P999:  ms(h.ValueAtQuantile(99.9)),
		Max:   ms(h.Max()),
		Mean:  h.Mean() / 1000,
	}
}

// Point is one BucketWidth of an endpoint's time series.
type Point struct {
	// T is the bucket's start in seconds since the series origin.
	T float64 `json:"t"`
	// PerSecond is the rate of requests started in the bucket, by outcome.
	PerSecond map[string]float64 `json:"perSecond,omitempty"`
	Latency   Latency            `json:"latency"`
}

// snapshot is an endpoint's state at the end of a run.
type snapshot struct {
	all    Latency
	byOut  [numOutcomes]Latency
	counts [numOutcomes]int64
	series []Point
	dist   []hdr.Bar // the full distribution, for the histogram plot
}

func (r *Recorder) snapshot(ep Endpoint) snapshot {
	e := &r.eps[ep]
	e.mu.Lock()
	defer e.mu.Unlock()
	s := snapshot{all: latencyOf(e.all), counts: e.counts, dist: e.all.Distribution()}
	for o, h := range e.byOut {
		s.byOut[o] = latencyOf(h)
	}
	perSec := float64(time.Second) / float64(BucketWidth)
	for i, b := range e.buckets {
		p := Point{T: (time.Duration(i) * BucketWidth).Seconds(), Latency: latencyOf(b.h)}
		for o, n := range b.counts {
			if n > 0 {
				if p.PerSecond == nil {
					p.PerSecond = map[string]float64{}
				}
				p.PerSecond[Outcome(o).String()] = float64(n) * perSec
			}
		}
		s.series = append(s.series, p)
	}
	return s
}
