package storetest

import (
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A lottery round's clock: registration during [now-3h, now-2h), the draw
// at its close, applications from roundOpens (now-1h), one group of two
// registrants every hour: positions 1-2 from now-1h, 3-4 from now, 5-6 from
// now+1h.
var (
	regOpens  = now.Add(-3 * time.Hour)
	regCloses = now.Add(-2 * time.Hour)
)

// lotteryRound creates an open lottery round with one slot per entry of
// beds and the given seed.
func (f *fixture) lotteryRound(seed byte, beds ...int) (booking.Round, []booking.Slot) {
	f.t.Helper()
	r, err := f.s.CreateRound(f.ctx, booking.Round{Name: fmt.Sprintf("lottery-%d", f.next.Add(1)),
		OpensAt: roundOpens, ClosesAt: roundCloses, TermStart: roundTermStart, TermEnd: roundTermEnd, Quota: 1,
		Lottery: &booking.Lottery{RegistrationOpensAt: regOpens, RegistrationClosesAt: regCloses,
			SelectionMinutes: 60, SelectionGroup: 2, Seed: slices.Repeat([]byte{seed}, booking.SeedSize)}})
	must(f.t, err)
	ids := make([]int64, len(beds))
	for i, b := range beds {
		ids[i] = f.room(fmt.Sprintf("L%d-%03d", r.ID, i), "L", 1, false, b).ID
	}
	slots, err := f.s.AddRoundSlots(f.ctx, r.ID, ids)
	must(f.t, err)
	r, err = f.s.SetRoundState(f.ctx, r.ID, booking.RoundOpen, regOpens)
	must(f.t, err)
	return r, slots
}

func testLotteryRound(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, _ := f.lotteryRound(7, 1)
	got, err := s.GetRound(f.ctx, r.ID)
	must(t, err)
	seed := slices.Repeat([]byte{7}, booking.SeedSize)
	if got.Lottery == nil || got.Lottery.Commitment != booking.Commit(seed) || !slices.Equal(got.Lottery.Seed, seed) ||
		!got.Lottery.RegistrationClosesAt.Equal(regCloses) || got.Lottery.SelectionGroup != 2 || got.Lottery.DrawnAt != nil {
		t.Fatalf("lottery round read back as %+v", got.Lottery)
	}
	plain, _ := f.openRound(1, 1)
	if plain.Lottery != nil {
		t.Fatalf("a first-come round has a lottery: %+v", plain.Lottery)
	}
	p := f.patient()
	if _, _, err := s.Register(f.ctx, plain.ID, p.ID, regOpens); booking.ErrorCode(err) != booking.CodeConflict {
		t.Fatalf("registration in a round without lottery: %v", err)
	}
	if _, _, err := s.Register(f.ctx, r.ID, p.ID, regOpens.Add(-time.Second)); booking.ErrorCode(err) != booking.CodeNotOpenYet {
		t.Fatalf("registration before the window: %v", err)
	}
	if _, _, err := s.Register(f.ctx, r.ID, p.ID, regCloses); booking.ErrorCode(err) != booking.CodeSlotClosed {
		t.Fatalf("registration at the close: %v", err)
	}
	if _, _, err := s.Register(f.ctx, r.ID+1000, p.ID, regOpens); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("registration in an unknown round: %v", err)
	}
	if _, err := s.Registration(f.ctx, r.ID, p.ID); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("registration of nobody: %v", err)
	}
	if _, err := s.GetDraw(f.ctx, r.ID); booking.ErrorCode(err) != booking.CodeNotOpenYet {
		t.Fatalf("draw before it ran: %v", err)
	}
	if _, _, err := s.DrawLottery(f.ctx, r.ID, regCloses.Add(-time.Second)); booking.ErrorCode(err) != booking.CodeNotOpenYet {
		t.Fatalf("draw before the close: %v", err)
	}
	if _, _, err := s.DrawLottery(f.ctx, plain.ID, now); booking.ErrorCode(err) != booking.CodeConflict {
		t.Fatalf("draw of a round without lottery: %v", err)
	}
	due, err := s.LotteriesDue(f.ctx, regCloses)
	must(t, err)
	if !slices.Contains(due, r.ID) || slices.Contains(due, plain.ID) {
		t.Fatalf("lotteries due %v, want %d among them", due, r.ID)
	}
}

// testLotteryRegisterRace: many goroutines register at once, each patient
// several times (retries racing each other): one registration each, and a
// retry answers the first.
func testLotteryRegisterRace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, _ := f.lotteryRound(1, 1)
	ps := f.patients(10)
	const tries = 4
	var mu sync.Mutex
	ids := map[int64]map[int64]bool{}
	fresh := map[int64]int{}
	release(len(ps)*tries, func(i int) {
		p := ps[i%len(ps)]
		g, existed, err := s.Register(f.ctx, r.ID, p.ID, regOpens.Add(time.Duration(i)*time.Second))
		must(t, err)
		mu.Lock()
		defer mu.Unlock()
		if ids[p.ID] == nil {
			ids[p.ID] = map[int64]bool{}
		}
		ids[p.ID][g.ID] = true
		if !existed {
			fresh[p.ID]++
		}
	})
	for _, p := range ps {
		if len(ids[p.ID]) != 1 || fresh[p.ID] != 1 {
			t.Fatalf("patient %d: registrations %v, %d answered as new", p.ID, ids[p.ID], fresh[p.ID])
		}
	}
	list, err := s.ListRegistrations(f.ctx, r.ID, 0, 100)
	must(t, err)
	if len(list) != len(ps) {
		t.Fatalf("%d registrations stored for %d patients", len(list), len(ps))
	}
	page, err := s.ListRegistrations(f.ctx, r.ID, list[3].ID, 2)
	must(t, err)
	if len(page) != 2 || page[0].ID != list[4].ID {
		t.Fatalf("page after %d: %+v", list[3].ID, page)
	}
}

// testLotteryDrawOnce: the draw raced by itself runs once; its order is
// DrawOrder of the seed and the ids, and positions and selection times
// follow it.
func testLotteryDrawOnce(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, _ := f.lotteryRound(3, 1)
	ps := f.patients(7)
	var regs []int64
	for _, p := range ps {
		g, _, err := s.Register(f.ctx, r.ID, p.ID, regOpens)
		must(t, err)
		regs = append(regs, g.ID)
	}
	var mu sync.Mutex
	drew := 0
	var draws []booking.Draw
	release(8, func(int) {
		d, did, err := s.DrawLottery(f.ctx, r.ID, regCloses)
		must(t, err)
		mu.Lock()
		defer mu.Unlock()
		if did {
			drew++
		}
		draws = append(draws, d)
	})
	if drew != 1 {
		t.Fatalf("the draw ran %d times", drew)
	}
	seed := slices.Repeat([]byte{3}, booking.SeedSize)
	want := booking.DrawOrder(seed, regs)
	for _, d := range draws {
		if !slices.Equal(d.Order, want) || d.Seed != hex.EncodeToString(seed) || d.Commitment != booking.Commit(seed) || d.Version != booking.DrawVersion {
			t.Fatalf("draw %+v, want order %v", d, want)
		}
	}
	// Too late: the window closed and the draw ran.
	if _, _, err := s.Register(f.ctx, r.ID, f.patient().ID, regCloses.Add(-time.Second)); booking.ErrorCode(err) != booking.CodeSlotClosed {
		t.Fatalf("registration after the draw: %v", err)
	}
	round, err := s.GetRound(f.ctx, r.ID)
	must(t, err)
	for k, id := range want {
		p := ps[slices.Index(regs, id)]
		g, err := s.Registration(f.ctx, r.ID, p.ID)
		must(t, err)
		at := round.Lottery.SelectionAt(round, k+1)
		if g.ID != id || g.Position != k+1 || g.SelectionAt == nil || !g.SelectionAt.Equal(at) {
			t.Fatalf("registration %+v, want position %d at %v", g, k+1, at)
		}
	}
	due, err := s.LotteriesDue(f.ctx, now)
	must(t, err)
	if slices.Contains(due, r.ID) {
		t.Fatalf("a drawn lottery is still due: %v", due)
	}
}

// testLotteryTurns: a lottery round's slot books only registrants, each
// from their selection time; others are refused not-your-turn.
func testLotteryTurns(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	r, slots := f.lotteryRound(5, 6)
	ps := f.patients(6)
	byReg := map[int64]booking.Patient{}
	for _, p := range ps {
		g, _, err := s.Register(f.ctx, r.ID, p.ID, regOpens)
		must(t, err)
		byReg[g.ID] = p
	}
	sl := slots[0].ID
	// Before the draw nobody has a turn.
	if res := f.book(sl, req(ps[0], sl, "early")); booking.ErrorCode(res.Err) != booking.CodeNotYourTurn {
		t.Fatalf("booking before the draw: %+v", res)
	}
	d, _, err := s.DrawLottery(f.ctx, r.ID, regCloses)
	must(t, err)
	outsider := f.patient()
	if res := f.book(sl, req(outsider, sl, "k")); booking.ErrorCode(res.Err) != booking.CodeNotYourTurn {
		t.Fatalf("booking by someone not registered: %+v", res)
	}
	for k, id := range d.Order {
		p := byReg[id]
		res := f.book(sl, req(p, sl, "k"))
		switch {
		case k < 4 && res.Err != nil:
			t.Fatalf("position %d at its time: %v", k+1, res.Err)
		case k >= 4:
			e, ok := res.Err.(*booking.Error)
			if !ok || e.Code != booking.CodeNotYourTurn || e.OpensAt == nil || !e.OpensAt.Equal(now.Add(time.Hour)) {
				t.Fatalf("position %d before its time: %+v", k+1, res)
			}
			// From its time on, it may.
			if res := f.bookAt(sl, req(p, sl, "k2"), now.Add(time.Hour)); res.Err != nil {
				t.Fatalf("position %d at its time: %v", k+1, res.Err)
			}
		}
	}
	// An asynchronous application is judged by the same rule.
	late := f.patient()
	a, _, err := s.SubmitApplication(f.ctx, booking.Application{RoundID: r.ID, PatientID: late.ID, SlotID: sl,
		IdempotencyKey: "a", Fingerprint: booking.ApplicationFingerprint(r.ID, sl)}, now)
	must(t, err)
	decided, err := s.DecidePending(f.ctx, r.ID, 10, now)
	must(t, err)
	if len(decided) != 1 || decided[0].ID != a.ID || decided[0].Reason != booking.CodeNotYourTurn {
		t.Fatalf("application of someone not registered: %+v", decided)
	}
	checkInvariants(t, h, s)
}
