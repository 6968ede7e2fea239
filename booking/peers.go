package booking

import (
	"context"
	"time"
)

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
