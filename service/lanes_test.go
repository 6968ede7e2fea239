package service

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
)

// A slow decision lets requests queue; they must then be decided together,
// each answered with its own result, in arrival order.
func TestLanesBatchInArrivalOrder(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	var order []string
	gate := make(chan struct{})
	entered := make(chan struct{}, 16)
	l := newLanes(LaneOptions{MaxBatch: 64}, func(_ context.Context, slotID int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
		entered <- struct{}{}
		<-gate
		mu.Lock()
		sizes = append(sizes, len(reqs))
		mu.Unlock()
		res := make([]booking.BookResult, len(reqs))
		for i, r := range reqs {
			mu.Lock()
			order = append(order, r.IdempotencyKey)
			mu.Unlock()
			res[i] = booking.BookResult{Appointment: booking.Appointment{SlotID: slotID, PatientID: r.PatientID}}
		}
		return res, nil
	})
	results := make([]booking.BookResult, 11)
	var wg sync.WaitGroup
	// The first request occupies the lane; ten more queue behind it, one by one.
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[0], _ = l.submit(context.Background(), 7, booking.BookRequest{PatientID: 0, IdempotencyKey: "k00"})
	}()
	<-entered // the lane is deciding the first request
	for i := 1; i <= 10; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i], _ = l.submit(context.Background(), 7, booking.BookRequest{PatientID: int64(i), IdempotencyKey: string(rune('a' + i))})
		}(i)
		waitFor(t, func() bool { return l.QueueDepth() == i })
	}
	close(gate)
	wg.Wait()
	if len(sizes) != 2 || sizes[0] != 1 || sizes[1] != 10 {
		t.Fatalf("batch sizes %v, want [1 10]", sizes)
	}
	for i, r := range results {
		if r.Err != nil || r.Appointment.PatientID != int64(i) || r.Appointment.SlotID != 7 {
			t.Fatalf("result %d = %+v", i, r)
		}
	}
	want := "k00bcdefghijk"
	got := ""
	for _, k := range order {
		got += k
	}
	if got != want {
		t.Fatalf("decided in order %q, want arrival order %q", got, want)
	}
}

// Beyond its bound a lane refuses at once with CodeOverloaded.
func TestLanesOverloaded(t *testing.T) {
	gate := make(chan struct{})
	entered := make(chan struct{}, 16)
	l := newLanes(LaneOptions{MaxQueue: 2}, func(_ context.Context, _ int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
		entered <- struct{}{}
		<-gate
		return make([]booking.BookResult, len(reqs)), nil
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); l.submit(context.Background(), 1, booking.BookRequest{}) }()
	<-entered
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.submit(context.Background(), 1, booking.BookRequest{}) }()
	}
	waitFor(t, func() bool { return l.QueueDepth() == 2 })
	r, _ := l.submit(context.Background(), 1, booking.BookRequest{})
	if booking.ErrorCode(r.Err) != booking.CodeOverloaded {
		t.Fatalf("want overloaded, got %v", r.Err)
	}
	// Another slot has its own lane.
	done := make(chan booking.BookResult)
	go func() { r, _ := l.submit(context.Background(), 2, booking.BookRequest{}); done <- r }()
	close(gate)
	if r := <-done; r.Err != nil {
		t.Fatalf("other slot: %v", r.Err)
	}
	wg.Wait()
}

// A failed batch answers every waiter with the error; an idle lane ends.
func TestLanesErrorAndIdle(t *testing.T) {
	l := newLanes(LaneOptions{Idle: 10 * time.Millisecond}, func(context.Context, int64, []booking.BookRequest) ([]booking.BookResult, error) {
		return nil, booking.ErrUnavailable
	})
	if r, _ := l.submit(context.Background(), 3, booking.BookRequest{}); booking.ErrorCode(r.Err) != booking.CodeUnavailable {
		t.Fatalf("want unavailable, got %v", r.Err)
	}
	waitFor(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.bySlot) == 0
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, "the lanes' condition", 5*time.Second, cond)
}

// Beyond MaxLanes a slot without a lane gets none: the caller decides the
// request on its own; slots that have a lane keep it.
func TestLanesBounded(t *testing.T) {
	gate := make(chan struct{})
	entered := make(chan struct{}, 4)
	l := newLanes(LaneOptions{MaxLanes: 1}, func(_ context.Context, _ int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
		entered <- struct{}{}
		<-gate
		return make([]booking.BookResult, len(reqs)), nil
	})
	done := make(chan bool)
	go func() { _, laned := l.submit(context.Background(), 1, booking.BookRequest{}); done <- laned }()
	<-entered
	if _, laned := l.submit(context.Background(), 2, booking.BookRequest{}); laned {
		t.Fatal("a second lane started beyond MaxLanes")
	}
	close(gate)
	if !<-done {
		t.Fatal("the first slot's request was not laned")
	}
}

// A reschedule into a hot slot queues in its lane behind the batch being
// decided and runs after that batch, in its turn; into a slot without a
// lane it is not run there (the caller runs it alone).
func TestLanesRunOtherChangesInTurn(t *testing.T) {
	var mu sync.Mutex
	var order []string
	gate := make(chan struct{})
	entered := make(chan struct{}, 4)
	l := newLanes(LaneOptions{MaxBatch: 64}, func(_ context.Context, _ int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
		entered <- struct{}{}
		<-gate
		mu.Lock()
		for _, r := range reqs {
			order = append(order, r.IdempotencyKey)
		}
		mu.Unlock()
		return make([]booking.BookResult, len(reqs)), nil
	})
	if _, ok := l.through(context.Background(), 9, func(context.Context) booking.BookResult { return booking.BookResult{} }); ok {
		t.Fatal("a slot without a lane ran the change in a lane")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l.submit(context.Background(), 9, booking.BookRequest{IdempotencyKey: "book-1"})
	}()
	<-entered
	var moved booking.BookResult
	var laned bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		moved, laned = l.through(context.Background(), 9, func(context.Context) booking.BookResult {
			mu.Lock()
			order = append(order, "move")
			mu.Unlock()
			return booking.BookResult{Appointment: booking.Appointment{ID: 42}}
		})
	}()
	waitFor(t, func() bool { return l.QueueDepth() == 1 })
	close(gate)
	wg.Wait()
	if !laned || moved.Appointment.ID != 42 {
		t.Fatalf("the change through the lane answered %+v (laned %v)", moved, laned)
	}
	if got := fmt.Sprint(order); got != "[book-1 move]" {
		t.Fatalf("order %s, want the batch first and the move in its turn", got)
	}
}
