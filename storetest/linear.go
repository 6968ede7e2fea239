package storetest

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/linear"
)

// The linearizability histories: linearSlots slots, each booked, cancelled
// and read by linearPatients concurrent patients doing linearOps
// operations each (10,240 in all), a few slots at a time.
const (
	linearSlots    = 40
	linearPatients = 8
	linearOps      = 32
	linearWave     = 8 // slots recorded at once
)

// linearRun records one history per slot and returns them. An error or an
// unexpected refusal is recorded as failed: a result the model refuses.
// lenient leaves it out instead, as if it had changed nothing (what a
// refusal rolled back does), so that a store is caught by what its
// bookings, cancels and reads say, not by its errors.
func linearRun(t testing.TB, s booking.Store, slots int, seed uint64, lenient bool) []*linear.History {
	t.Helper()
	f := newFixture(t, s)
	failed := linear.Failed
	if lenient {
		failed = linear.Dropped
	}
	hs := make([]*linear.History, slots)
	for wave := 0; wave < slots; wave += linearWave {
		var wg sync.WaitGroup
		for i := wave; i < min(wave+linearWave, slots); i++ {
			capacity := 1 + i%4
			sl := f.slot(capacity)
			hs[i] = linear.NewHistory(capacity)
			ps := f.patients(linearPatients)
			for p := range ps {
				wg.Add(1)
				go func() {
					defer wg.Done()
					linearPatient(f, sl.ID, hs[i], p, ps[p], rand.New(rand.NewPCG(seed, uint64(i*linearPatients+p))), failed)
				}()
			}
		}
		wg.Wait()
	}
	return hs
}

// linearPatient books, cancels its own appointment and reads the slot at
// random, recording each call and answer.
func linearPatient(f *fixture, slotID int64, h *linear.History, idx int, p booking.Patient, rng *rand.Rand, failed linear.Result) {
	var mine int64 // this patient's active appointment
	for op := 0; op < linearOps; op++ {
		x := rng.IntN(10)
		switch {
		case x < 6 && (mine == 0 || x < 1): // book (again, when holding a place: already-booked)
			done := h.Call(idx, linear.Input{Kind: linear.Book, Patient: idx})
			res, err := f.s.Book(f.ctx, slotID, []booking.BookRequest{req(p, slotID, fmt.Sprintf("lin-%d-%d", idx, op))}, now)
			switch {
			case err != nil:
				done(linear.Output{Result: failed})
			case res[0].Err == nil:
				done(linear.Output{Result: linear.OK, Queue: res[0].Appointment.QueueNumber})
				mine = res[0].Appointment.ID
			default:
				r := bookResult(res[0].Err)
				if r == linear.Failed {
					r = failed
				}
				done(linear.Output{Result: r})
			}
		case x < 8 && mine != 0:
			done := h.Call(idx, linear.Input{Kind: linear.Cancel, Patient: idx})
			a, err := f.s.Cancel(f.ctx, mine, p.ID, now)
			if err != nil || a.Status != booking.StatusCancelled {
				done(linear.Output{Result: failed})
			} else {
				done(linear.Output{Result: linear.OK})
			}
			mine = 0
		default:
			done := h.Call(idx, linear.Input{Kind: linear.Read, Patient: idx})
			sl, err := f.s.GetSlot(f.ctx, slotID)
			if err != nil {
				done(linear.Output{Result: failed})
			} else {
				done(linear.Output{Result: linear.OK, Booked: sl.BookedCount})
			}
		}
	}
}

// bookResult maps a refusal to the model's results; any other refusal is
// one no slot gives here (the slots are open, apart and free of fees).
func bookResult(err error) linear.Result {
	switch booking.ErrorCode(err) {
	case booking.CodeSlotFull:
		return linear.Full
	case booking.CodeAlreadyBooked:
		return linear.AlreadyBooked
	}
	return linear.Failed
}

// linearCheck checks every history and returns the failures.
func linearCheck(hs []*linear.History) (ops int, failures []string) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var n atomic.Int64
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n.Add(int64(h.Len()))
			if err := h.Check(); err != nil {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("slot %d: %v", i, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return int(n.Load()), failures
}

func testLinearizable(t *testing.T, h Harness) {
	s := h.New(t)
	hs := linearRun(t, s, linearSlots, uint64(time.Now().UnixNano()), false)
	ops, failures := linearCheck(hs)
	t.Logf("linearizability: %d histories, %d operations", len(hs), ops)
	if len(failures) > 0 {
		t.Fatalf("%d of %d histories are not linearizable:\n%s", len(failures), len(hs), join(failures, 5))
	}
	if ops < 10000 {
		t.Fatalf("only %d operations recorded, want at least 10,000", ops)
	}
	checkInvariants(t, h, s)
}

// testLinearCatchesRacy proves the check can fail: the histories of a store
// that reads then writes are not linearizable, even when each of its errors
// is given the benefit of the doubt. One wave of slots is enough to show it.
func testLinearCatchesRacy(t *testing.T, h Harness) {
	if h.NewRacy == nil {
		t.Fatal("the harness must offer NewRacy: the linearizability check has to prove it can fail on this store")
	}
	for round := 1; round <= 3; round++ {
		hs := linearRun(t, h.NewRacy(t), linearWave, uint64(round), true)
		if _, failures := linearCheck(hs); len(failures) > 0 {
			t.Logf("round %d: %d of %d histories of the racy store are not linearizable (first: %s)", round, len(failures), len(hs), failures[0])
			return
		}
	}
	t.Fatal("the linearizability check did not catch a store that reads then writes")
}
