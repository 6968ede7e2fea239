package service

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// Lookups that queue while one read is in flight are answered by the next
// read together, each with its own answer.
func TestKeyLookupsCoalesce(t *testing.T) {
	var calls atomic.Int64
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	k := newKeyLookups(func(_ context.Context, reqs []booking.BookRequest) ([]booking.Appointment, error) {
		if calls.Add(1) == 1 {
			entered <- struct{}{}
			<-gate
		}
		var out []booking.Appointment
		for _, r := range reqs {
			if r.PatientID%2 == 0 { // even patients have booked with their key
				out = append(out, booking.Appointment{ID: r.PatientID * 10, PatientID: r.PatientID, IdempotencyKey: r.IdempotencyKey})
			}
		}
		return out, nil
	}, time.Second)

	var wg sync.WaitGroup
	check := func(p int64) {
		defer wg.Done()
		ans := k.lookup(context.Background(), booking.BookRequest{PatientID: p, IdempotencyKey: fmt.Sprint("k", p)})
		a, found, err := ans.a, ans.found, ans.err
		if err != nil || found != (p%2 == 0) || (found && a.ID != p*10) {
			t.Errorf("patient %d: %+v found=%v err=%v", p, a, found, err)
		}
	}
	wg.Add(1)
	go check(0)
	<-entered // the first read is in flight; the rest queue behind it
	for p := int64(1); p <= 100; p++ {
		wg.Add(1)
		go check(p)
	}
	waitFor(t, func() bool { k.mu.Lock(); defer k.mu.Unlock(); return len(k.queue) == 100 })
	close(gate)
	wg.Wait()
	if n := calls.Load(); n != 2 {
		t.Fatalf("%d reads for 101 lookups, want 2", n)
	}
}

// A failed read answers each of its lookups with the error.
func TestKeyLookupsError(t *testing.T) {
	k := newKeyLookups(func(context.Context, []booking.BookRequest) ([]booking.Appointment, error) {
		return nil, booking.ErrUnavailable
	}, time.Second)
	if err := k.lookup(context.Background(), booking.BookRequest{PatientID: 1, IdempotencyKey: "k"}).err; booking.ErrorCode(err) != booking.CodeUnavailable {
		t.Fatalf("err = %v", err)
	}
}
