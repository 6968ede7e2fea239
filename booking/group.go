package booking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Group bookings (docs/campaigns.md): one request of an account books k
// places of one slot for k of its people, all or nothing, on consecutive
// queue numbers. It is one batch of Store.BookGroup, decided by
// DecideBooking with every request marked Group: wholeGroup refuses the
// whole batch when one member is refused, and QueueFrom then looks for a
// run of free numbers.

// MaxGroup bounds the people of one group booking.
const MaxGroup = 10

// GroupKey is the Idempotency-Key of each member's appointment of a group
// booked with key. Like DoseKey it holds a space, which a client's key
// never does.
func GroupKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return "group " + hex.EncodeToString(h[:20])
}

// GroupFingerprint is the canonical form of a group request: the slot and
// its people, in id order.
func GroupFingerprint(slotID int64, patients []int64) string {
	ps := slices.Sorted(slices.Values(patients))
	var b strings.Builder
	fmt.Fprintf(&b, "group slot=%d;patients=", slotID)
	for k, p := range ps {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(p, 10))
	}
	return b.String()
}

// Group is one group booking: a place of SlotID for each of PatientIDs
// (distinct), with the account's Idempotency-Key; Actor and Staff as for
// a BookRequest.
type Group struct {
	SlotID     int64
	PatientIDs []int64
	Key        string
	Actor      Actor
	Staff      bool
	// Invitations are the members' invitation codes, in PatientIDs'
	// order (nil, or shorter: none for the rest); each member of a
	// campaign by invitation needs their own.
	Invitations []string
}

// Requests are the group's batch: one request per person, in the order
// given.
func (g Group) Requests() []BookRequest {
	fp, k := GroupFingerprint(g.SlotID, g.PatientIDs), GroupKey(g.Key)
	reqs := make([]BookRequest, len(g.PatientIDs))
	for i, p := range g.PatientIDs {
		reqs[i] = BookRequest{PatientID: p, IdempotencyKey: k, Fingerprint: fp, SlotID: g.SlotID, Actor: g.Actor, Staff: g.Staff, Group: true}
		if i < len(g.Invitations) {
			reqs[i].Invitation = g.Invitations[i]
		}
	}
	return reqs
}

// wholeGroup makes the batch's decision all or nothing: when a member is
// refused (or, for a key used before, not every member replays) nobody
// gets a place and every member not replayed gets the first refusal.
func (d *BookDecision) wholeGroup() {
	d.group = true
	var refusal error
	replays := 0
	for _, r := range d.results {
		switch {
		case r.Replayed:
			replays++
		case r.Err != nil && refusal == nil:
			refusal = r.Err
		}
	}
	if replays > 0 && replays < len(d.reqs) {
		refusal = KeyReused(d.slot.ID)
	}
	if refusal == nil {
		return
	}
	d.Winners, d.Fulfilled = nil, nil
	for i, r := range d.results {
		if !r.Replayed && r.Err == nil {
			d.results[i].Err = copyError(refusal)
		}
	}
}

// queueBlock is QueueFrom for a group: the lowest run of len(Winners)
// consecutive free numbers in 1..capacity, or slot-full when the free
// places are scattered.
func (d *BookDecision) queueBlock(taken iter.Seq[int], released map[int]bool) error {
	n := len(d.Winners)
	start := 1 // the first number of the run being measured
	for used := range taken {
		if released[used] {
			continue
		}
		if used-start >= n {
			break
		}
		start = max(start, used+1)
	}
	if start+n-1 > d.slot.Capacity {
		return Errorf(CodeSlotFull, "no %d consecutive places left in this slot", n)
	}
	d.Queue = make([]int, n)
	for k := range d.Queue {
		d.Queue[k] = start + k
	}
	return nil
}

// GroupStore books group bookings.
type GroupStore interface {
	// BookGroup decides reqs (Group.Requests: one slot, distinct people)
	// in one transaction, all or nothing: every member gets a place, on
	// consecutive numbers, or every member is refused with the first
	// refusal (a constraint that fires refuses them all too). A retry
	// with the same key answers every member's appointment as it is now.
	BookGroup(ctx context.Context, slotID int64, reqs []BookRequest, now time.Time) ([]BookResult, error)
}

// RefuseAll answers every request of a group with err.
func RefuseAll(reqs []BookRequest, err error) []BookResult {
	out := make([]BookResult, len(reqs))
	for i := range out {
		out[i].Err = copyError(err)
	}
	return out
}
