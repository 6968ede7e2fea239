package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A lottery round with selection windows: groups of windowGroup registrants,
// one group an hour from roundOpens (now-1h), each turn lasting an hour.
// Positions 1-4 choose in [now-1h, now), 5-8 in [now, now+1h), 9-12 in
// [now+1h, now+2h).
const windowGroup = 4

// windowRound creates an open lottery round with windows, one slot per
// entry of beds, registers ps, draws, and returns the registrants in draw
// order.
func (f *fixture) windowRound(ps []booking.Patient, beds ...int) (booking.Round, []booking.Slot, []booking.Patient) {
	f.t.Helper()
	r, err := f.s.CreateRound(f.ctx, booking.Round{Name: fmt.Sprintf("window-%d", f.next.Add(1)),
		OpensAt: roundOpens, ClosesAt: roundCloses, TermStart: roundTermStart, TermEnd: roundTermEnd, Quota: 1,
		Lottery: &booking.Lottery{RegistrationOpensAt: regOpens, RegistrationClosesAt: regCloses,
			SelectionMinutes: 60, SelectionGroup: windowGroup, WindowMinutes: 60, Seed: slices.Repeat([]byte{9}, booking.SeedSize)}})
	must(f.t, err)
	ids := make([]int64, len(beds))
	for i, b := range beds {
		ids[i] = f.room(fmt.Sprintf("W%d-%03d", r.ID, i), "W", i%3, i%2 == 0, b).ID
	}
	slots, err := f.s.AddRoundSlots(f.ctx, r.ID, ids)
	must(f.t, err)
	r, err = f.s.SetRoundState(f.ctx, r.ID, booking.RoundOpen, regOpens)
	must(f.t, err)
	byReg := map[int64]booking.Patient{}
	for _, p := range ps {
		g, _, err := f.s.Register(f.ctx, r.ID, p.ID, regOpens)
		must(f.t, err)
		byReg[g.ID] = p
	}
	d, _, err := f.s.DrawLottery(f.ctx, r.ID, regCloses)
	must(f.t, err)
	order := make([]booking.Patient, len(d.Order))
	for k, id := range d.Order {
		order[k] = byReg[id]
	}
	return r, slots, order
}

// testLotteryWindows: the draw gives each registrant a window that the
// booking decision keeps on both sides (not-your-turn before it,
// turn-passed after it); an application is judged at its arrival.
func testLotteryWindows(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, slots, order := f.windowRound(f.patients(3*windowGroup), slices.Repeat([]int{1}, 3*windowGroup)...)
	got, err := s.GetRound(f.ctx, r.ID)
	must(t, err)
	if got.Lottery == nil || got.Lottery.WindowMinutes != 60 {
		t.Fatalf("window read back as %+v", got.Lottery)
	}
	for k, p := range order {
		g, err := s.Registration(f.ctx, r.ID, p.ID)
		must(t, err)
		from := roundOpens.Add(time.Duration(k/windowGroup) * time.Hour)
		if g.SelectionAt == nil || !g.SelectionAt.Equal(from) || g.SelectionEndsAt == nil || !g.SelectionEndsAt.Equal(from.Add(time.Hour)) {
			t.Fatalf("position %d: turn %v to %v, want %v for an hour", k+1, g.SelectionAt, g.SelectionEndsAt, from)
		}
	}
	for k, p := range order {
		sl := slots[k].ID
		res := f.book(sl, req(p, sl, "k"))
		var want booking.Code
		switch k / windowGroup {
		case 0:
			want = booking.CodeTurnPassed
		case 2:
			want = booking.CodeNotYourTurn
		}
		if booking.ErrorCode(res.Err) != want {
			t.Fatalf("position %d at now: %v, want %q", k+1, res.Err, want)
		}
		if want == booking.CodeTurnPassed {
			if e := res.Err.(*booking.Error); e.OpensAt == nil || !e.OpensAt.Equal(now) {
				t.Fatalf("position %d: a passed turn names %v, not its end", k+1, e.OpensAt)
			}
		}
	}
	// The last group's turn comes, then passes.
	last := order[len(order)-1]
	sl := slots[len(order)-1].ID
	if res := f.bookAt(sl, req(last, sl, "w"), now.Add(2*time.Hour)); booking.ErrorCode(res.Err) != booking.CodeTurnPassed {
		t.Fatalf("the last position after its window: %v", res.Err)
	}
	if res := f.bookAt(sl, req(last, sl, "w2"), now.Add(2*time.Hour-time.Microsecond)); res.Err != nil {
		t.Fatalf("the last position in its window's last instant: %v", res.Err)
	}
	// An application that arrived inside the window is decided inside it,
	// however late the processor gets to it.
	p := order[8]
	sl = slots[8].ID
	a, _, err := s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: p.ID, SlotID: sl,
		IdempotencyKey: "a", Fingerprint: booking.ApplicationFingerprint(r.ID, sl)}, now.Add(90*time.Minute))
	must(t, err)
	decided, err := s.DecidePending(f.ctx, r.ID, 10, now.Add(3*time.Hour))
	must(t, err)
	if len(decided) != 1 || decided[0].ID != a.ID || decided[0].Status != booking.ApplicationAllocated {
		t.Fatalf("an application made in its window, decided after it: %+v", decided)
	}
	// Applications made after their turn are refused; staff list the
	// refusals a page at a time, and the allocations apart.
	var late []int64
	for k, p := range order[:3] {
		sl := slots[k].ID
		a, _, err := s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: p.ID, SlotID: sl,
			IdempotencyKey: "late", Fingerprint: booking.ApplicationFingerprint(r.ID, sl)}, now)
		must(t, err)
		late = append(late, a.ID)
	}
	_, err = s.DecidePending(f.ctx, r.ID, 10, now)
	must(t, err)
	refused, err := s.ListApplications(f.ctx, booking.ApplicationQuery{RoundID: r.ID, Status: booking.ApplicationRejected, Limit: 2})
	must(t, err)
	if len(refused) != 2 || refused[0].ID != late[0] || refused[1].ID != late[1] || refused[0].Reason != booking.CodeTurnPassed {
		t.Fatalf("the first page of refusals: %+v", refused)
	}
	rest, err := s.ListApplications(f.ctx, booking.ApplicationQuery{RoundID: r.ID, Status: booking.ApplicationRejected, AfterID: refused[1].ID, Limit: 2})
	must(t, err)
	allocated, err := s.ListApplications(f.ctx, booking.ApplicationQuery{RoundID: r.ID, Status: booking.ApplicationAllocated, Limit: 10})
	must(t, err)
	if len(rest) != 1 || rest[0].ID != late[2] || len(allocated) != 1 || allocated[0].ID != a.ID {
		t.Fatalf("the next page of refusals %+v, the allocations %+v", rest, allocated)
	}
	checkInvariants(t, h, s)
}

// testLotteryWindowRace: the registrants of one window, released at once
// on the same one-bed room, several tries each: it goes to exactly one, the
// others are refused slot-full (the winner's own retries already-booked). Then each races for a room of their own:
// the winner is refused by the quota, the others get theirs.
func testLotteryWindowRace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	beds := slices.Repeat([]int{1}, 1+windowGroup)
	_, slots, order := f.windowRound(f.patients(3*windowGroup), beds...)
	group := order[windowGroup : 2*windowGroup] // the window open at now
	shared := slots[0].ID
	const tries = 3
	var mu sync.Mutex
	winners := map[int64]bool{}
	refused := map[booking.Code]int{}
	release(tries*len(group), func(i int) {
		p := group[i%len(group)]
		res, err := s.Book(f.ctx, shared, []booking.BookRequest{req(p, shared, fmt.Sprintf("t%d", i))}, now)
		must(t, err)
		mu.Lock()
		defer mu.Unlock()
		if res[0].Err != nil {
			refused[booking.ErrorCode(res[0].Err)]++
			return
		}
		winners[p.ID] = true
	})
	// The winner's other tries find their place: already-booked.
	if len(winners) != 1 || refused[booking.CodeSlotFull] != tries*(len(group)-1) || refused[booking.CodeAlreadyBooked] != tries-1 {
		t.Fatalf("the shared one-bed room: winners %v, refusals %v", winners, refused)
	}
	codes := make([]booking.Code, len(group))
	release(len(group), func(i int) {
		sl := slots[1+i].ID
		res, err := s.Book(f.ctx, sl, []booking.BookRequest{req(group[i], sl, "own")}, now)
		must(t, err)
		codes[i] = booking.ErrorCode(res[0].Err)
	})
	for i, c := range codes {
		want := booking.Code("")
		if winners[group[i].ID] {
			want = booking.CodeQuotaExceeded
		}
		if c != want {
			t.Fatalf("registrant %d on their own room: %q, want %q", i, c, want)
		}
	}
	// The group before, whose turn has passed, and the one after, whose
	// turn has not come, race too and get nothing.
	others := append(slices.Clone(order[:windowGroup]), order[2*windowGroup:]...)
	codes = make([]booking.Code, len(others))
	release(len(others), func(i int) {
		res, err := s.Book(f.ctx, shared, []booking.BookRequest{req(others[i], shared, "late")}, now)
		must(t, err)
		codes[i] = booking.ErrorCode(res[0].Err)
	})
	for i, c := range codes {
		want := booking.CodeTurnPassed
		if i >= windowGroup {
			want = booking.CodeNotYourTurn
		}
		if c != want {
			t.Fatalf("registrant %d outside their window: %q, want %q", i, c, want)
		}
	}
	checkInvariants(t, h, s)
}
