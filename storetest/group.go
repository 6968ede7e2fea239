package storetest

import (
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/slotd/slotd/booking"
)

// bookGroup books slot for ps with key as one group.
func (f *fixture) bookGroup(slotID int64, key string, ps ...booking.Patient) []booking.BookResult {
	f.t.Helper()
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	res, err := f.s.BookGroup(f.ctx, slotID, booking.Group{SlotID: slotID, PatientIDs: ids, Key: key}.Requests(), now)
	must(f.t, err)
	if len(res) != len(ps) {
		f.t.Fatalf("BookGroup answered %d results for %d people", len(res), len(ps))
	}
	return res
}

// wantGroupRefused fails unless every member is refused with code.
func wantGroupRefused(t testing.TB, res []booking.BookResult, code booking.Code) {
	t.Helper()
	for i, r := range res {
		if booking.ErrorCode(r.Err) != code {
			t.Fatalf("member %d: %v, want %s for the whole group", i, r.Err, code)
		}
	}
}

// numbers are the group's queue numbers, ascending.
func numbers(t testing.TB, res []booking.BookResult) []int {
	t.Helper()
	var ns []int
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("member refused: %v", r.Err)
		}
		ns = append(ns, r.Appointment.QueueNumber)
	}
	sort.Ints(ns)
	return ns
}

func testGroup(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(5)
	fam := f.patients(3)
	res := f.bookGroup(sl.ID, "g1", fam...)
	if got := fmt.Sprint(numbers(t, res)); got != "[1 2 3]" {
		t.Fatalf("numbers %s", got)
	}
	again := f.bookGroup(sl.ID, "g1", fam...)
	for i, r := range again {
		if !r.Replayed || r.Appointment.ID != res[i].Appointment.ID {
			t.Fatalf("retry of member %d: %+v", i, r)
		}
	}
	wantGroupRefused(t, f.bookGroup(sl.ID, "g1", fam[0], fam[1]), booking.CodeKeyReused)
	// Two places left: a group of three is refused whole; one member
	// already holding a place refuses the group too.
	three := f.patients(3)
	wantGroupRefused(t, f.bookGroup(sl.ID, "g2", three...), booking.CodeSlotFull)
	wantGroupRefused(t, f.bookGroup(sl.ID, "g3", three[0], fam[0]), booking.CodeAlreadyBooked)
	if f.getSlot(sl.ID).BookedCount != 3 || activeOf(t, h, s, three[0].ID) != 0 {
		t.Fatal("a refused group took places")
	}

	// Scattered free numbers take no group; a run does.
	other := f.slot(5)
	singles := f.patients(5)
	var as []booking.Appointment
	for _, p := range singles {
		as = append(as, f.mustBook(other.ID, p))
	}
	for _, k := range []int{1, 3} { // numbers 2 and 4
		if _, err := s.Cancel(f.ctx, as[k].ID, 0, now); err != nil {
			t.Fatal(err)
		}
	}
	wantGroupRefused(t, f.bookGroup(other.ID, "g4", three[0], three[1]), booking.CodeSlotFull)
	if _, err := s.Cancel(f.ctx, as[2].ID, 0, now); err != nil { // and 3
		t.Fatal(err)
	}
	if got := fmt.Sprint(numbers(t, f.bookGroup(other.ID, "g5", three[0], three[1]))); got != "[2 3]" {
		t.Fatalf("the run of free numbers gave %s, want [2 3]", got)
	}
	checkInvariants(t, h, s)
}

// Groups of three racing single bookings for a slot's last places: no
// oversell, every group whole or absent on consecutive numbers, the
// reconciliation sound.
func testRaceGroup(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(10)
	const groups, size, singles = 6, 3, 6 // at least one group and one single always win
	ps := f.patients(groups*size + singles)
	var mu sync.Mutex
	won := map[int][]booking.BookResult{}
	var o outcomes
	release(groups+singles, func(i int) {
		if i < groups {
			res := f.bookGroup(sl.ID, "group", ps[i*size:(i+1)*size]...)
			if res[0].Err == nil {
				mu.Lock()
				won[i] = res
				mu.Unlock()
				return
			}
			wantGroupRefused(t, res, booking.ErrorCode(res[0].Err))
			if c := booking.ErrorCode(res[0].Err); c != booking.CodeSlotFull {
				t.Errorf("group %d: %v", i, res[0].Err)
			}
			return
		}
		p := ps[groups*size+i-groups]
		o.add(f.book(sl.ID, req(p, sl.ID, "single")))
	})
	taken := o.n["ok"]
	for i := range groups {
		res, ok := won[i]
		for _, p := range ps[i*size : (i+1)*size] {
			if n := activeOf(t, h, s, p.ID); (ok && n != 1) || (!ok && n != 0) {
				t.Fatalf("group %d (won %v): patient %d holds %d places", i, ok, p.ID, n)
			}
		}
		if ok {
			ns := numbers(t, res)
			if ns[size-1]-ns[0] != size-1 {
				t.Fatalf("group %d got numbers %v, not consecutive", i, ns)
			}
			taken += size
		}
	}
	if got := f.getSlot(sl.ID).BookedCount; got != taken || got > sl.Capacity {
		t.Fatalf("counter %d, answered %d, capacity %d", got, taken, sl.Capacity)
	}
	if len(won) == 0 || o.n["ok"] == 0 {
		t.Fatalf("no group (%d) or no single (%v) won: the race proves nothing", len(won), o.n)
	}
	wantWhole(t, s)
	checkInvariants(t, h, s)
}
