package booking

import (
	"context"
	"time"
)

// Limiter spends one booking attempt of a patient (AttemptBooking). The
// in-process RateLimiter is the default; an adapter may share one budget
// between instances (cmd/slotd wires redisstate's GCRA with --redis), and
// must then fall back to an in-process limiter itself when it cannot
// answer in a bounded time, since a booking never fails because of it.
type Limiter interface {
	Allow(patientID int64, now time.Time) RateDecision
}

// Peers shares what one instance learns in front of the database with the
// other instances of a deployment. It is advisory: the database still
// decides every booking, so a peer set that is slow or unreachable must
// answer in a bounded time as if it were absent (ClaimKey true, Publish
// dropped).
type Peers interface {
	// ClaimKey marks patientID's Idempotency-Key as being decided, for at
	// most ttl; false when another instance is deciding it now. release
	// ends the claim.
	ClaimKey(ctx context.Context, patientID int64, key string, ttl time.Duration) (release func(), ok bool)
	// Publish tells the other instances of a change made here.
	Publish(Signal)
}

// SignalKind says what a Signal tells.
type SignalKind string

// Signals between instances.
const (
	// SignalFull: a decision found the slot full (a known-full mark).
	SignalFull SignalKind = "full"
	// SignalReleased: a place of the slot was given back (the mark clears).
	SignalReleased SignalKind = "released"
	// SignalForget: the slot itself changed (capacity, status).
	SignalForget SignalKind = "forget"
	// SignalChanged: the places of the slot changed (caches drop it).
	SignalChanged SignalKind = "changed"
)

// Signal is one change an instance tells the others about.
type Signal struct {
	Kind     SignalKind `json:"k"`
	SlotID   int64      `json:"s"`
	DoctorID int64      `json:"d,omitempty"`
}

// Receive applies a Signal published by another instance, as if this
// instance had made the change: the gates update their marks and the
// watchers (list caches) drop the slot. Nothing is published again.
func (s *Service) Receive(sig Signal) {
	switch sig.Kind {
	case SignalFull:
		s.gates.markFull(sig.SlotID, s.now(), s.gates.epoch())
		return
	case SignalReleased:
		s.gates.released(sig.SlotID)
	case SignalForget:
		s.gates.forget(sig.SlotID)
	case SignalChanged:
	default:
		return
	}
	s.tellWatchers(Change{SlotID: sig.SlotID, DoctorID: sig.DoctorID})
}

// publish tells the peers of sig, if there are peers.
func (s *Service) publish(sig Signal) {
	if s.peers != nil {
		s.peers.Publish(sig)
	}
}

// claimKey claims key across instances for the whole attempt; without
// peers or a key there is nothing to claim.
func (s *Service) claimKey(ctx context.Context, patientID int64, key string) (release func(), ok bool) {
	if s.peers == nil || key == "" {
		return func() {}, true
	}
	return s.peers.ClaimKey(ctx, patientID, key, s.timeout+time.Second)
}
