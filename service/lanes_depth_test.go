package service

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/slotd/slotd/booking"
)

// At Depth 2 the next batch is decided while the current one still runs;
// when the later batch finishes first it still answers second, and the
// first batch's failure answers only its own waiters.
func TestLanesOverlapAnswersInOrder(t *testing.T) {
	boom := errors.New("first batch failed")
	entered := make(chan []booking.BookRequest, 4)
	returned := make(chan string, 4)
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
	l := newLanes(LaneOptions{MaxBatch: 64, Depth: 2}, func(_ context.Context, _ int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
		entered <- reqs
		defer func() { returned <- reqs[0].IdempotencyKey }()
		<-release[reqs[0].IdempotencyKey]
		if reqs[0].IdempotencyKey == "a" {
			return nil, boom
		}
		res := make([]booking.BookResult, len(reqs))
		for i, r := range reqs {
			res[i] = booking.BookResult{Appointment: booking.Appointment{PatientID: r.PatientID, IdempotencyKey: r.IdempotencyKey}}
		}
		return res, nil
	})
	var mu sync.Mutex
	var wg sync.WaitGroup
	results := map[string]booking.BookResult{}
	submit := func(key string, patient int64) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _ := l.submit(context.Background(), 3, booking.BookRequest{PatientID: patient, IdempotencyKey: key})
			mu.Lock()
			results[key] = r
			mu.Unlock()
		}()
	}
	submit("a", 1)
	if got := <-entered; len(got) != 1 {
		t.Fatalf("first batch %v", got)
	}
	submit("b", 2)
	// The second batch is decided while the first is still in flight.
	if got := <-entered; len(got) != 1 || got[0].IdempotencyKey != "b" {
		t.Fatalf("second batch %v", got)
	}
	// A third waits: the depth is 2.
	submit("c", 3)
	waitFor(t, func() bool { return l.QueueDepth() == 1 })
	select {
	case got := <-entered:
		t.Fatalf("a third batch %v ran beyond the depth", got)
	default:
	}
	close(release["b"]) // the second finishes first…
	if k := <-returned; k != "b" {
		t.Fatalf("%s returned first", k)
	}
	// …but answers after the first: it is not answered yet, and its place
	// in flight is still taken (the third batch has not started).
	mu.Lock()
	_, answered := results["b"]
	mu.Unlock()
	if answered {
		t.Fatal("the second batch answered before the first")
	}
	select {
	case got := <-entered:
		t.Fatalf("batch %v started while the second waited to answer", got)
	default:
	}
	close(release["a"])
	if got := <-entered; got[0].IdempotencyKey != "c" {
		t.Fatalf("third batch %v", got)
	}
	close(release["c"])
	wg.Wait()
	if !errors.Is(results["a"].Err, boom) {
		t.Fatalf("a = %+v, want the first batch's failure", results["a"])
	}
	for _, k := range []string{"b", "c"} {
		if results[k].Err != nil || results[k].Appointment.IdempotencyKey != k {
			t.Fatalf("%s = %+v, want its own batch's answer", k, results[k])
		}
	}
}
