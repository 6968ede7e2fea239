package service

import (
	"math"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"golang.org/x/time/rate"
)

// defaultMaxLimiters bounds the per-patient limiter map. Entries are small
// (~100 bytes), so this is a few MiB at most; beyond it new patients are
// shed with CodeOverloaded rather than letting memory grow without bound.
const defaultMaxLimiters = 100_000

// RateLimiter is a token bucket per patient: burst n, refilled at n per
// window. A bucket idle for a whole window is full again and thus equal to
// a fresh one, so such entries are evicted.
type RateLimiter struct {
	n      int
	window time.Duration
	limit  rate.Limit
	max    int

	mu        sync.Mutex
	buckets   map[int64]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

// NewRateLimiter allows n attempts per window to each of at most maxEntries
// patients at once.
func NewRateLimiter(n int, window time.Duration, maxEntries int) *RateLimiter {
	return &RateLimiter{
		n: n, window: window, max: maxEntries,
		limit:   rate.Limit(float64(n) / window.Seconds()),
		buckets: map[int64]*bucket{},
	}
}

// Allow takes one attempt from patient's bucket at now.
func (l *RateLimiter) Allow(patient int64, now time.Time) booking.RateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[patient]
	if b == nil {
		if len(l.buckets) >= l.max {
			l.sweep(now)
		}
		if len(l.buckets) >= l.max {
			return booking.RateDecision{Full: true, Quota: l.n, Window: l.window, RetryAfter: time.Second}
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.n)}
		l.buckets[patient] = b
	}
	b.last = now
	if now.Sub(l.lastSweep) > l.window {
		l.sweep(now)
	}
	d := booking.RateDecision{Allowed: b.lim.AllowN(now, 1), Quota: l.n, Window: l.window}
	tokens := b.lim.TokensAt(now)
	d.Remaining = int(math.Max(0, math.Floor(tokens)))
	d.Reset = l.timeFor(float64(l.n) - tokens)
	if !d.Allowed {
		d.RetryAfter = max(l.timeFor(1-tokens), time.Second)
	}
	return d
}

// timeFor is how long the bucket takes to gain tokens tokens.
func (l *RateLimiter) timeFor(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(tokens / float64(l.limit) * float64(time.Second))
}

// sweep evicts buckets idle for a full window (they are full again). Caller
// holds mu. Sweeps are O(entries), so they run at most once per window
// unless the map is full.
func (l *RateLimiter) sweep(now time.Time) {
	l.lastSweep = now
	for id, b := range l.buckets {
		if now.Sub(b.last) >= l.window {
			delete(l.buckets, id)
		}
	}
}

// Size reports the number of live buckets.
func (l *RateLimiter) Size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
