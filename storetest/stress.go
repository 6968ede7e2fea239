package storetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// stressOps is the number of operations per goroutine of the stress test;
// SLOTD_STRESS_OPS raises it for a long run.
func stressOps() int {
	if n, err := strconv.Atoi(os.Getenv("SLOTD_STRESS_OPS")); err == nil && n > 0 {
		return n
	}
	return 150
}

const stressWorkers = 64

// stressReport is what a stress run found wrong.
type stressReport struct {
	unexpected []string // answers that no correct store gives
	violations []string // invariant breaches found in the rows afterwards
	counts     map[string]int
}

func (r stressReport) failed() bool { return len(r.unexpected)+len(r.violations) > 0 }

// stress runs 64 goroutines of random book / retry / batch / cancel
// operations over a handful of small slots (two of them overlapping, one
// with a fee), then checks the invariants and that every appointment
// answered as created is still there in the state the clients left it.
func stress(t testing.TB, h Harness, s booking.Store, opsPerWorker int, seed uint64) stressReport {
	t.Helper()
	f := newFixture(t, s)
	start := now.Add(96 * time.Hour)
	slots := []booking.Slot{
		f.slot(1, startsAt(start)),
		f.slot(2, startsAt(start.Add(time.Hour))),
		f.slot(3, startsAt(start.Add(2*time.Hour)), withFee(500)),
		f.slot(5, startsAt(start.Add(3*time.Hour))),
		f.slot(2, startsAt(start.Add(3*time.Hour+15*time.Minute)), onDoctor(f.doctor2.ID)), // overlaps the previous
	}
	type worker struct{ patients [2]booking.Patient }
	workers := make([]worker, stressWorkers)
	for i := range workers {
		workers[i].patients = [2]booking.Patient{f.patient(), f.patient()}
	}

	var mu sync.Mutex
	rep := stressReport{counts: map[string]int{}}
	created := map[int64]booking.Appointment{} // every appointment answered as new
	cancelled := map[int64]bool{}
	note := func(bad string) {
		mu.Lock()
		rep.unexpected = append(rep.unexpected, bad)
		mu.Unlock()
	}

	release(stressWorkers, func(w int) {
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		type keyed struct {
			slotID, apptID int64
			patient        booking.Patient
			key            string
		}
		var mine []keyed // keys this worker has seen succeed
		answer := func(k keyed, r booking.BookResult) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case r.Err == nil && r.Replayed:
				rep.counts["replay"]++
			case r.Err == nil:
				rep.counts["ok"]++
				if _, dup := created[r.Appointment.ID]; dup {
					rep.unexpected = append(rep.unexpected, fmt.Sprintf("appointment %d created twice", r.Appointment.ID))
				}
				created[r.Appointment.ID] = r.Appointment
				k.apptID = r.Appointment.ID
				mine = append(mine, k)
			default:
				code := booking.ErrorCode(r.Err)
				rep.counts[string(code)]++
				switch code {
				// appointment-limit: the default caps are on, and a worker's
				// patients book many slots of one day.
				case booking.CodeSlotFull, booking.CodeAlreadyBooked, booking.CodeOverlapping, booking.CodeLimitReached:
				default:
					rep.unexpected = append(rep.unexpected, fmt.Sprintf("book: %v", r.Err))
				}
			}
		}
		for op := 0; op < opsPerWorker; op++ {
			p := workers[w].patients[rng.IntN(2)]
			sl := slots[rng.IntN(len(slots))]
			switch x := rng.IntN(100); {
			case x >= 78:
				stressWaitlistOp(f, x, rng.IntN(1000), p, sl, slots, w, op, note, &mu, rep.counts, func() (int64, bool) {
					mu.Lock()
					defer mu.Unlock()
					if len(mine) == 0 {
						return 0, false
					}
					k := mine[rng.IntN(len(mine))]
					return k.apptID, k.patient.ID == p.ID
				})
			case x < 40: // a new booking attempt
				k := keyed{slotID: sl.ID, patient: p, key: fmt.Sprintf("w%d-op%d", w, op)}
				res, err := s.Book(f.ctx, sl.ID, []booking.BookRequest{req(p, sl.ID, k.key)}, now)
				if err != nil {
					note(fmt.Sprintf("book: %v", err))
					continue
				}
				answer(k, res[0])
			case x < 52: // both patients of this worker in one batch
				ks := []keyed{}
				var reqs []booking.BookRequest
				for i, bp := range workers[w].patients {
					k := keyed{slotID: sl.ID, patient: bp, key: fmt.Sprintf("w%d-op%d-%d", w, op, i)}
					ks = append(ks, k)
					reqs = append(reqs, req(bp, sl.ID, k.key))
				}
				res, err := s.Book(f.ctx, sl.ID, reqs, now)
				if err != nil {
					note(fmt.Sprintf("batch: %v", err))
					continue
				}
				for i, r := range res {
					answer(ks[i], r)
				}
			case x < 66: // a retry of a key that succeeded: must replay it
				if len(mine) == 0 {
					continue
				}
				k := mine[rng.IntN(len(mine))]
				res, err := s.Book(f.ctx, k.slotID, []booking.BookRequest{req(k.patient, k.slotID, k.key)}, now)
				if err != nil {
					note(fmt.Sprintf("retry: %v", err))
					continue
				}
				if r := res[0]; r.Err != nil || !r.Replayed || r.Appointment.ID != k.apptID {
					note(fmt.Sprintf("retry of %s answered %+v, want replay of %d", k.key, r, k.apptID))
				}
				mu.Lock()
				rep.counts["replay"]++
				mu.Unlock()
			default: // x < 78: cancel one of this worker's appointments
				if len(mine) == 0 {
					continue
				}
				i := rng.IntN(len(mine))
				k := mine[i]
				a, err := s.Cancel(f.ctx, k.apptID, k.patient.ID, now)
				if err != nil || a.Status != booking.StatusCancelled {
					note(fmt.Sprintf("cancel %d: %v", k.apptID, err))
					continue
				}
				mu.Lock()
				cancelled[k.apptID] = true
				rep.counts["cancel"]++
				mu.Unlock()
			}
		}
	})

	ins := h.Inspect(t, s)
	rep.violations = Violations(t, ins)
	var everyone []booking.Patient
	for _, w := range workers {
		everyone = append(everyone, w.patients[:]...)
	}
	rep.violations = append(rep.violations, offerViolations(t, f, everyone)...)
	// No lost confirmation: every appointment answered as created still
	// exists, active unless a client cancelled it.
	active := map[int64]bool{}
	for _, a := range ins.ActiveAppointments(t) {
		active[a.ID] = true
	}
	for id := range created {
		if active[id] == cancelled[id] {
			rep.violations = append(rep.violations, fmt.Sprintf("appointment %d: active=%v but cancelled by its client=%v", id, active[id], cancelled[id]))
		}
	}
	return rep
}

func testStress(t *testing.T, h Harness) {
	s := h.New(t)
	rep := stress(t, h, s, stressOps(), uint64(time.Now().UnixNano()))
	t.Logf("stress: %d workers × %d ops: %v", stressWorkers, stressOps(), rep.counts)
	if rep.failed() {
		t.Fatalf("unexpected answers:\n%s\ninvariants broken:\n%s", join(rep.unexpected, 20), join(rep.violations, 20))
	}
	if rep.counts["ok"] == 0 || rep.counts[string(booking.CodeSlotFull)] == 0 || rep.counts["cancel"] == 0 {
		t.Fatalf("the stress run did not exercise the store: %v", rep.counts)
	}
}

// testStressCatchesRacyStore proves the stress test can fail: against a
// store that reads then writes, it must find a breach.
func testStressCatchesRacy(t *testing.T, h Harness) {
	if h.NewRacy == nil {
		t.Fatal("the harness must offer NewRacy: the stress test has to prove it can fail on this store")
	}
	for round := 1; round <= 3; round++ {
		s := h.NewRacy(t)
		rep := stress(t, h, s, stressOps(), uint64(round))
		if rep.failed() {
			t.Logf("round %d caught the racy store: %d unexpected answers, %d invariant breaches (first: %s)",
				round, len(rep.unexpected), len(rep.violations), first(rep))
			return
		}
	}
	t.Fatal("the stress test did not catch a store that reads then writes")
}

func first(r stressReport) string {
	if len(r.violations) > 0 {
		return r.violations[0]
	}
	return r.unexpected[0]
}
