package edge

import (
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// KeyLimiter is a token bucket per key (a client address, a user name):
// burst n, refilled at n per window.
type KeyLimiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// maxKeyBuckets bounds the memory of a KeyLimiter.
const maxKeyBuckets = 100_000

// NewKeyLimiter allows n per window to each key.
func NewKeyLimiter(n int, window time.Duration) *KeyLimiter {
	return &KeyLimiter{limit: rate.Limit(float64(n) / window.Seconds()), burst: n, buckets: map[string]*rate.Limiter{}}
}

// Allow spends one attempt of key at now, or tells how long to wait.
func (l *KeyLimiter) Allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok && len(l.buckets) >= maxKeyBuckets {
		// Forget only buckets that have refilled (their key is owed
		// nothing): flooding with new keys must not reset a key under
		// attack. If none has, refuse the new key until one does.
		for k, x := range l.buckets {
			if x.TokensAt(now) >= float64(l.burst) {
				delete(l.buckets, k)
			}
		}
		if len(l.buckets) >= maxKeyBuckets {
			return false, time.Second
		}
	}
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[key] = b
	}
	return spend(b, now)
}

// Budget is one token bucket shared by everyone: a global budget (sign-in
// codes sent per minute, whoever asks).
type Budget struct{ b *rate.Limiter }

// NewBudget allows n per window in all.
func NewBudget(n int, window time.Duration) *Budget {
	return &Budget{rate.NewLimiter(rate.Limit(float64(n)/window.Seconds()), n)}
}

// Allow spends one of the budget at now, or tells how long to wait.
func (g *Budget) Allow(now time.Time) (bool, time.Duration) { return spend(g.b, now) }

// Left reports whether one of the budget is left at now, spending nothing,
// or how long until one is.
func (g *Budget) Left(now time.Time) (bool, time.Duration) {
	tokens := g.b.TokensAt(now)
	if tokens >= 1 {
		return true, 0
	}
	return false, time.Duration((1 - tokens) / float64(g.b.Limit()) * float64(time.Second))
}

func spend(b *rate.Limiter, now time.Time) (bool, time.Duration) {
	res := b.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// AddrLimiter is the one per-address limit of public traffic: every front
// end (the API's public routes, /fhir/, /ical/, the web pages) spends the
// same bucket of a client (ClientAddr: an IPv4 address or an IPv6 /64), so
// an address gets n requests per window in all, not n per front end.
// A nil *AddrLimiter allows everything (no limit configured).
type AddrLimiter struct {
	keys *KeyLimiter
	now  func() time.Time
}

// NewAddrLimiter allows each client n requests per window, reading the
// time from now (time.Now when nil); nil when n <= 0.
func NewAddrLimiter(n int, window time.Duration, now func() time.Time) *AddrLimiter {
	if n <= 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	return &AddrLimiter{keys: NewKeyLimiter(n, window), now: now}
}

// Allow spends one request of r's client, or tells how long to wait.
func (a *AddrLimiter) Allow(r *http.Request) (bool, time.Duration) {
	if a == nil {
		return true, 0
	}
	return a.keys.Allow(ClientAddr(r), a.now())
}

// Limit serves next within the limit. Only the requests counted reports
// true for spend the client's bucket (nil counts all); deny answers a
// request past the limit with how long to wait (a 429 with Retry-After).
func (a *AddrLimiter) Limit(next http.Handler, counted func(*http.Request) bool, deny func(http.ResponseWriter, *http.Request, time.Duration)) http.Handler {
	if a == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if counted == nil || counted(r) {
			if ok, wait := a.Allow(r); !ok {
				deny(w, r, wait)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
