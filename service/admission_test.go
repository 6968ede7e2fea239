package service

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// The gate admits campaignConcurrent at once, lets campaignWaiting wait
// for a turn, sheds the next as overloaded at once, and a waiter whose
// deadline passes leaves unavailable.
func TestCampaignGate(t *testing.T) {
	g := newCampaignGate()
	var leaves []func()
	for range campaignConcurrent {
		leave, err := g.enter(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, leave)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.enter(ctx); booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("a waiter past its deadline: %v", err)
	}
	g.waiting.Store(campaignWaiting)
	if _, err := g.enter(t.Context()); booking.ErrorCode(err) != booking.CodeOverloaded {
		t.Fatalf("beyond the waiting bound: %v", err)
	}
	g.waiting.Store(0)
	done := make(chan error)
	go func() {
		leave, err := g.enter(t.Context())
		if err == nil {
			leave()
		}
		done <- err
	}()
	leaves[0]()
	if err := <-done; err != nil {
		t.Fatalf("a waiter given a turn: %v", err)
	}
}
