package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// defaultMaxLimiters bounds the per-patient limiter map. Entries are small
// (~100 bytes), so this is a few MiB at most; beyond it new patients are
// shed with 503 rather than letting memory grow without bound.
const defaultMaxLimiters = 100_000

// ratePolicyName names the booking policy in the RateLimit headers.
const ratePolicyName = "booking"

// rateLimiter is a token bucket per patient: burst n, refilled at n per
// window. A bucket idle for a whole window is full again and thus equal to
// a fresh one, so such entries are evicted.
type rateLimiter struct {
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

func newRateLimiter(n int, window time.Duration, maxEntries int) *rateLimiter {
	return &rateLimiter{
		n: n, window: window, max: maxEntries,
		limit:   rate.Limit(float64(n) / window.Seconds()),
		buckets: map[int64]*bucket{},
	}
}

// rateDecision is the outcome of one attempt, with what the headers say.
type rateDecision struct {
	allowed bool
	// full is true when no bucket could be made (too many patients).
	full bool
	// remaining whole attempts after this one, and seconds until the bucket
	// is full again.
	remaining int
	reset     time.Duration
	// retryAfter is the wait before the next attempt can succeed.
	retryAfter time.Duration
}

// allow takes one attempt from patient's bucket at now.
func (l *rateLimiter) allow(patient int64, now time.Time) rateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[patient]
	if b == nil {
		if len(l.buckets) >= l.max {
			l.sweep(now)
		}
		if len(l.buckets) >= l.max {
			return rateDecision{full: true, retryAfter: time.Second}
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.n)}
		l.buckets[patient] = b
	}
	b.last = now
	if now.Sub(l.lastSweep) > l.window {
		l.sweep(now)
	}
	d := rateDecision{allowed: b.lim.AllowN(now, 1)}
	tokens := b.lim.TokensAt(now)
	d.remaining = int(math.Max(0, math.Floor(tokens)))
	d.reset = l.timeFor(float64(l.n) - tokens)
	if !d.allowed {
		d.retryAfter = max(l.timeFor(1-tokens), time.Second)
	}
	return d
}

// timeFor is how long the bucket takes to gain tokens tokens.
func (l *rateLimiter) timeFor(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(tokens / float64(l.limit) * float64(time.Second))
}

// sweep evicts buckets idle for a full window (they are full again). Caller
// holds mu. Sweeps are O(entries), so they run at most once per window
// unless the map is full.
func (l *rateLimiter) sweep(now time.Time) {
	l.lastSweep = now
	for id, b := range l.buckets {
		if now.Sub(b.last) >= l.window {
			delete(l.buckets, id)
		}
	}
}

// size reports the number of live buckets, for tests.
func (l *rateLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// setHeaders writes the RateLimit-Policy and RateLimit fields of
// draft-ietf-httpapi-ratelimit-headers (-10): the policy's quota q per
// window w seconds, and the remaining quota r with t seconds until it is
// fully restored.
func (l *rateLimiter) setHeaders(h http.Header, d rateDecision) {
	h.Set("RateLimit-Policy", `"`+ratePolicyName+`";q=`+strconv.Itoa(l.n)+`;w=`+strconv.FormatInt(ceilSeconds(l.window), 10))
	h.Set("RateLimit", `"`+ratePolicyName+`";r=`+strconv.Itoa(d.remaining)+`;t=`+strconv.FormatInt(ceilSeconds(d.reset), 10))
}

// ceilSeconds rounds d up to whole seconds, never inviting an early retry.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
