package service

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestSeriesBatcher: series that queue while a batch is decided form the
// next batch together, each answered its own answer; one whose caller
// gives up while still queued is never decided, and one whose batch
// already took it waits for the batch's answer instead of giving up.
func TestSeriesBatcher(t *testing.T) {
	gate := make(chan struct{})
	var mu sync.Mutex
	var batches [][]int64
	b := newSeriesBatcher(1, func(_ context.Context, rs []booking.SeriesRequest) ([]booking.SeriesAnswer, error) {
		<-gate
		out := make([]booking.SeriesAnswer, len(rs))
		var ids []int64
		for k, r := range rs {
			ids = append(ids, r.PatientID)
			out[k].Result.Booking.PatientID = r.PatientID
			if r.PatientID%2 == 0 {
				out[k] = booking.SeriesAnswer{Err: booking.Errorf(booking.CodeSlotFull, "full")}
			}
		}
		mu.Lock()
		batches = append(batches, ids)
		mu.Unlock()
		return out, nil
	})
	type answer struct {
		res booking.SeriesResult
		err error
	}
	submit := func(ctx context.Context, p int64) chan answer {
		c := make(chan answer, 1)
		go func() {
			res, err := b.submit(ctx, booking.SeriesRequest{PatientID: p})
			c <- answer{res, err}
		}()
		return c
	}
	// The first is taken at once and its decision held; its caller's
	// deadline passes meanwhile.
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	first := submit(short, 1)
	time.Sleep(20 * time.Millisecond)
	// Queued behind it: one that gives up, then three that wait.
	quit, cancelQuit := context.WithCancel(context.Background())
	gaveUp := submit(quit, 100)
	time.Sleep(10 * time.Millisecond)
	cancelQuit()
	if a := <-gaveUp; !errors.Is(a.err, context.Canceled) {
		t.Fatalf("a queued series whose caller left: %+v", a)
	}
	rest := []chan answer{submit(context.Background(), 3), submit(context.Background(), 4), submit(context.Background(), 5)}
	time.Sleep(80 * time.Millisecond) // past first's deadline
	close(gate)
	if a := <-first; a.err != nil || a.res.Booking.PatientID != 1 {
		t.Fatalf("the series taken before its deadline passed: %+v", a)
	}
	for k, c := range rest {
		a := <-c
		want := int64(3 + k)
		if want%2 == 0 {
			if booking.ErrorCode(a.err) != booking.CodeSlotFull {
				t.Fatalf("series %d: %+v", want, a)
			}
			continue
		}
		if a.err != nil || a.res.Booking.PatientID != want {
			t.Fatalf("series %d answered %+v", want, a)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(batches) != 2 || len(batches[0]) != 1 || len(batches[1]) != 3 {
		t.Fatalf("batches %v: want [1] then the three that queued, without the one that left", batches)
	}
}
