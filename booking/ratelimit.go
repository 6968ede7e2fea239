package booking

import (
	"time"
)

// Defaults of the per-patient booking rate limit (Options.BookingRate).
const (
	DefaultBookingRate   = 5
	DefaultBookingWindow = 10 * time.Second
)

// RateDecision is the outcome of one attempt, with what the RateLimit
// headers of an HTTP answer say.
type RateDecision struct {
	Allowed bool
	// Full is true when no bucket could be made (too many patients).
	Full bool
	// Quota attempts per Window is the policy.
	Quota  int
	Window time.Duration
	// Remaining whole attempts after this one, and the time until the
	// bucket is full again.
	Remaining int
	Reset     time.Duration
	// RetryAfter is the wait before the next attempt can succeed.
	RetryAfter time.Duration
}

// Err is the refusal of a decision that did not allow the attempt, or nil.
func (d RateDecision) Err() error {
	switch {
	case d.Full:
		return &Error{Code: CodeOverloaded, Message: "too many patients are booking; retry shortly", RetryAfter: d.RetryAfter}
	case !d.Allowed:
		return &Error{Code: CodeRateLimited, Message: "too many booking attempts; retry later", RetryAfter: d.RetryAfter}
	}
	return nil
}

// Limiter spends one booking attempt of a patient (AttemptBooking). The
// in-process RateLimiter is the default; an adapter may share one budget
// between instances (cmd/slotd wires redisstate's GCRA with --redis), and
// must then fall back to an in-process limiter itself when it cannot
// answer in a bounded time, since a booking never fails because of it.
type Limiter interface {
	Allow(patientID int64, now time.Time) RateDecision
}
