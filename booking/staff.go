package booking

import (
	"strings"
	"time"
)

// Staff sign-in lockout policy: StaffFreeFailures failed sign-ins of one
// staff name are allowed; each failure from then on locks the name for
// StaffLockBase, doubled per further failure, at most StaffLockMax. A
// success resets the count, and failures older than StaffFailureMemory
// are forgotten.
const (
	StaffFreeFailures  = 5
	StaffLockBase      = time.Minute
	StaffLockMax       = time.Hour
	StaffFailureMemory = 24 * time.Hour
)

// StaffLockKey is the key a staff name's failures are counted under: the
// name in lower case, as typed, whether or not such a user exists (so that
// a lock says nothing about which names are staff).
func StaffLockKey(name string) string { return strings.ToLower(name) }

// StaffLock is a staff name's failed sign-ins as the store keeps them; the
// zero value is a name with none.
type StaffLock struct {
	Failures    int
	LastFailure time.Time
	LockedUntil time.Time // zero: never locked
}

// StaffAttempt is one staff sign-in attempt as the Service checked it,
// before the store decides it.
type StaffAttempt struct {
	// Verified: the user exists, the password is right and, when the user
	// has a second factor, the code matched a time step.
	Verified bool
	// TOTPStep is the time step the code matched (0: no second factor).
	TOTPStep int64
}

// StaffOutcome is what one staff sign-in attempt comes to.
type StaffOutcome int

const (
	// StaffAccepted: signed in; the failures are reset, the code's step is
	// remembered.
	StaffAccepted StaffOutcome = iota
	// StaffRefused: a wrong name, password or code; one failure counted.
	StaffRefused
	// StaffReplayed: the right code, but its step was already used (or an
	// older one); counted as a failure.
	StaffReplayed
	// StaffLocked: the name is locked; nothing is counted or checked.
	StaffLocked
)

// String names the outcome for metrics.
func (o StaffOutcome) String() string {
	switch o {
	case StaffAccepted:
		return "accepted"
	case StaffRefused:
		return "refused"
	case StaffReplayed:
		return "replayed"
	}
	return "locked"
}

// StaffNotEnrolled is the outcome of an admin with the right password
// refused because a second factor is required and it has none.
const StaffNotEnrolled = "totp-not-enrolled"

// StaffOutcomes are the outcomes a staff sign-in is counted under.
var StaffOutcomes = []string{"accepted", "refused", "replayed", "locked", StaffNotEnrolled}

// StaffDecision is DecideStaffAttempt's answer: the outcome, the lock and
// the last used step to store, and how long the name stays locked.
type StaffDecision struct {
	Outcome StaffOutcome
	Lock    StaffLock
	// LastStep is the newest used time step of the user's second factor.
	LastStep int64
	// NewLock: this failure locked the name (a lockout, for metrics).
	NewLock bool
	// RetryAfter is how long the name stays locked (0: not locked).
	RetryAfter time.Duration
}

// StaffLockFor is how long the failures-th failure locks a name: nothing
// before StaffFreeFailures, then StaffLockBase doubled per failure past
// it, at most StaffLockMax.
func StaffLockFor(failures int) time.Duration {
	if failures < StaffFreeFailures {
		return 0
	}
	d := StaffLockBase
	for i := StaffFreeFailures; i < failures && d < StaffLockMax; i++ {
		d *= 2
	}
	return min(d, StaffLockMax)
}

// DecideStaffAttempt decides attempt a on a staff name whose failures are
// lock and whose user last used time step lastStep, at now. A locked name
// is refused whatever was typed, the right password too, and nothing
// changes; a verified attempt whose step is not newer than lastStep is a
// replay. Both stores call it inside the transaction that holds the
// name's row.
func DecideStaffAttempt(lock StaffLock, lastStep int64, a StaffAttempt, now time.Time) StaffDecision {
	if now.Before(lock.LockedUntil) {
		return StaffDecision{Outcome: StaffLocked, Lock: lock, LastStep: lastStep, RetryAfter: lock.LockedUntil.Sub(now)}
	}
	if a.Verified && (a.TOTPStep == 0 || a.TOTPStep > lastStep) {
		step := lastStep
		if a.TOTPStep != 0 {
			step = a.TOTPStep
		}
		return StaffDecision{Outcome: StaffAccepted, LastStep: step}
	}
	out := StaffRefused
	if a.Verified {
		out = StaffReplayed
	}
	failures := lock.Failures
	if !lock.LastFailure.IsZero() && now.Sub(lock.LastFailure) > StaffFailureMemory {
		failures = 0
	}
	failures++
	d := StaffDecision{Outcome: out, LastStep: lastStep, Lock: StaffLock{Failures: failures, LastFailure: now, LockedUntil: lock.LockedUntil}}
	if wait := StaffLockFor(failures); wait > 0 {
		d.Lock.LockedUntil = now.Add(wait)
		d.NewLock = true
		d.RetryAfter = wait
	}
	return d
}

// Err is the refusal of a decision, or nil when it is accepted. A locked
// name is rate-limited with RetryAfter; a wrong password, an unknown name,
// a wrong and a replayed code all read alike (the failure that locks the
// name too: it was wrong), so that none tells which part was wrong.
func (d StaffDecision) Err() error {
	switch d.Outcome {
	case StaffAccepted:
		return nil
	case StaffLocked:
		e := Errorf(CodeRateLimited, "too many failed sign-ins for this user name: try again later")
		e.RetryAfter = d.RetryAfter
		return e
	}
	return Errorf(CodeUnauthorized, "wrong user name, password or code")
}
