package service

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A decision that found the slot full while this instance freed a place
// must not mark it full: the mark would refuse a place known free for
// FullTTL (scripts/chaos found this as a non-linearizable slot-full).
func TestGatesReleaseDuringDecision(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	sl := booking.Slot{ID: 7, Capacity: 1, Status: booking.SlotOpen, OpensAt: now.Add(-time.Hour), StartAt: now.Add(time.Hour)}
	g := newGates(GateOptions{}, func(context.Context, int64) (booking.Slot, error) { return sl, nil })
	ctx := context.Background()
	if e := g.check(ctx, sl.ID, now); e != nil {
		t.Fatalf("an open slot refused: %v", e)
	}

	since := g.epoch() // a decision starts…
	g.released(sl.ID)  // …a cancel frees the place and clears the mark…
	g.markFull(sl.ID, now, since)
	if e := g.check(ctx, sl.ID, now); e != nil {
		t.Fatalf("the decision's stale full marked the slot after the release: %v", e)
	}

	since = g.epoch() // a decision after the release that finds it full again
	g.markFull(sl.ID, now, since)
	if e := g.check(ctx, sl.ID, now); e == nil || e.Code != booking.CodeSlotFull {
		t.Fatalf("a slot found full after the last release was not marked: %v", e)
	}
}
