package storetest

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// outcomes counts results by code ("ok" for a new appointment, "replay").
type outcomes struct {
	mu sync.Mutex
	n  map[string]int
	as []booking.Appointment
}

func (o *outcomes) add(r booking.BookResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[string]int{}
	}
	switch {
	case r.Err != nil:
		o.n[string(booking.ErrorCode(r.Err))]++
	case r.Replayed:
		o.n["replay"]++
	default:
		o.n["ok"]++
		o.as = append(o.as, r.Appointment)
	}
}

func testRaceCapacityOne(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(1)
	ps := f.patients(20)
	var o outcomes
	release(20, func(i int) { o.add(f.book(sl.ID, req(ps[i], sl.ID, "k"))) })
	if o.n["ok"] != 1 || o.n[string(booking.CodeSlotFull)] != 19 {
		t.Fatalf("want 1 ok and 19 slot-full, got %v", o.n)
	}
	checkInvariants(t, h, s)
}

func testRaceCapacityTen(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(10)
	ps := f.patients(200)
	var o outcomes
	release(200, func(i int) { o.add(f.book(sl.ID, req(ps[i], sl.ID, "k"))) })
	if o.n["ok"] != 10 || o.n[string(booking.CodeSlotFull)] != 190 {
		t.Fatalf("want 10 ok and 190 slot-full, got %v", o.n)
	}
	wantNumbers(t, o.as, 10)
	if got := f.getSlot(sl.ID).BookedCount; got != 10 {
		t.Fatalf("booked_count = %d", got)
	}
	checkInvariants(t, h, s)
}

// Concurrent batches (as the group-commit lanes of several instances send
// them) share the slot exactly like single requests.
func testRaceBatches(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(10)
	ps := f.patients(80)
	var o outcomes
	release(10, func(i int) {
		reqs := make([]booking.BookRequest, 8)
		for j := range reqs {
			reqs[j] = req(ps[i*8+j], sl.ID, "k")
		}
		res, err := s.Book(f.ctx, sl.ID, reqs, now)
		if err != nil {
			o.add(booking.BookResult{Err: err})
			return
		}
		for _, r := range res {
			o.add(r)
		}
	})
	if o.n["ok"] != 10 || o.n[string(booking.CodeSlotFull)] != 70 {
		t.Fatalf("want 10 ok and 70 slot-full, got %v", o.n)
	}
	wantNumbers(t, o.as, 10)
	checkInvariants(t, h, s)
}

func wantNumbers(t testing.TB, as []booking.Appointment, n int) {
	t.Helper()
	var got []int
	for _, a := range as {
		got = append(got, a.QueueNumber)
	}
	sort.Ints(got)
	for i := 0; i < n; i++ {
		if len(got) != n || got[i] != i+1 {
			t.Fatalf("queue numbers %v, want exactly 1..%d", got, n)
		}
	}
}

// The same patient and key sent many times at once yields one appointment;
// every other answer is a replay of it.
func testRaceSameKey(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(5)
	p := f.patient()
	var o outcomes
	var ids sync.Map
	release(16, func(i int) {
		r := f.book(sl.ID, req(p, sl.ID, "same"))
		o.add(r)
		if r.Err == nil {
			ids.Store(r.Appointment.ID, true)
		}
	})
	n := 0
	ids.Range(func(_, _ any) bool { n++; return true })
	if o.n["ok"] != 1 || o.n["replay"] != 15 || n != 1 {
		t.Fatalf("want 1 ok and 15 replays of one appointment, got %v (%d ids)", o.n, n)
	}
	if f.getSlot(sl.ID).BookedCount != 1 {
		t.Fatal("one key took several places")
	}
	checkInvariants(t, h, s)
}

// One key sent for two different slots at once: the slots are locked
// separately, so the unique (patient, key) constraint settles it.
func testRaceSameKeyTwoSlots(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	for round := 0; round < 10; round++ {
		a, b := f.slot(1), f.slot(1, onDoctor(f.doctor2.ID))
		p := f.patient()
		var o outcomes
		release(2, func(i int) {
			id := []int64{a.ID, b.ID}[i]
			o.add(f.book(id, req(p, id, "dup")))
		})
		if o.n["ok"] != 1 || o.n[string(booking.CodeKeyReused)] != 1 {
			t.Fatalf("round %d: want 1 ok and 1 idempotency-key-reused, got %v", round, o.n)
		}
	}
	checkInvariants(t, h, s)
}

// One patient booking two overlapping slots of two doctors at once: only the
// constraint (PostgreSQL) or the serialized writer (SQLite) can refuse one.
func testRaceOverlap(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	for round := 0; round < 10; round++ {
		a := f.slot(1)
		b := f.slot(1, startsAt(a.StartAt.Add(10*time.Minute)), onDoctor(f.doctor2.ID))
		p := f.patient()
		var o outcomes
		release(2, func(i int) {
			id := []int64{a.ID, b.ID}[i]
			o.add(f.book(id, req(p, id, fmt.Sprint("k", i))))
		})
		if o.n["ok"] != 1 || o.n[string(booking.CodeOverlapping)] != 1 {
			t.Fatalf("round %d: want 1 ok and 1 overlapping-appointment, got %v", round, o.n)
		}
	}
	checkInvariants(t, h, s)
}

func testRaceDoubleCancel(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3)
	ps := f.patients(3)
	var as []booking.Appointment
	for _, p := range ps {
		as = append(as, f.mustBook(sl.ID, p))
	}
	var fails atomic.Int64
	release(12, func(i int) {
		a := as[i%3]
		c, err := s.Cancel(f.ctx, a.ID, a.PatientID, now)
		if err != nil || c.Status != booking.StatusCancelled {
			fails.Add(1)
		}
	})
	if fails.Load() != 0 {
		t.Fatalf("%d concurrent cancels failed; every one must answer the cancelled appointment", fails.Load())
	}
	if got := f.getSlot(sl.ID).BookedCount; got != 0 {
		t.Fatalf("booked_count = %d after cancelling 3 of 3, want 0", got)
	}
	// Rebooked by others.
	for range 3 {
		f.mustBook(sl.ID, f.patient())
	}
	wantCode(t, f.book(sl.ID, req(f.patient(), sl.ID, "late")).Err, booking.CodeSlotFull)
	checkInvariants(t, h, s)
}
