package booking

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"testing"
	"time"
)

func seedOf(n uint64) []byte {
	s := make([]byte, SeedSize)
	binary.BigEndian.PutUint64(s, n)
	return s
}

func TestDrawOrderIsADeterministicPermutation(t *testing.T) {
	ids := []int64{42, 7, 19, 3, 88, 64, 5}
	a, b := DrawOrder(seedOf(1), ids), DrawOrder(seedOf(1), slices.Clone(ids))
	if !slices.Equal(a, b) {
		t.Fatalf("same seed and ids, two orders: %v %v", a, b)
	}
	// The order of the input does not matter: the ids are sorted first.
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	if c := DrawOrder(seedOf(1), rev); !slices.Equal(a, c) {
		t.Fatalf("input order changed the draw: %v %v", a, c)
	}
	sorted := slices.Sorted(slices.Values(a))
	if want := slices.Sorted(slices.Values(ids)); !slices.Equal(sorted, want) {
		t.Fatalf("not a permutation: %v", a)
	}
	if d := DrawOrder(seedOf(2), ids); slices.Equal(a, d) {
		t.Fatalf("another seed, same order %v", a)
	}
	if e := DrawOrder(seedOf(1), append(slices.Clone(ids), 100)); slices.Equal(a, e[:len(a)]) && e[len(a)] == 100 {
		t.Fatalf("another list, same order %v", e)
	}
	if got := DrawOrder(seedOf(1), nil); len(got) != 0 {
		t.Fatalf("empty list drew %v", got)
	}
}

// TestDrawOrderKnownVector pins version 1 of the algorithm: a change here
// breaks every published draw, and needs a new DrawVersion.
func TestDrawOrderKnownVector(t *testing.T) {
	seed := bytes.Repeat([]byte{0xab}, SeedSize)
	got := DrawOrder(seed, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	want := []int64{3, 8, 2, 9, 6, 10, 5, 4, 7, 1} // also computed by a separate Python script of docs/clinic.md's description
	if !slices.Equal(got, want) {
		t.Fatalf("draw of the known vector = %v, want %v", got, want)
	}
	sum := sha256.Sum256(seed)
	if got := Commit(seed); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("commitment %s", got)
	}
}

// TestDrawOrderUniform: over many seeds each id lands in each position about
// equally often (a chi-squared sanity check, far from its 0.1% bound).
func TestDrawOrderUniform(t *testing.T) {
	const n, draws = 5, 20000
	ids := []int64{10, 20, 30, 40, 50}
	var count [n][n]int
	for s := range uint64(draws) {
		for pos, id := range DrawOrder(seedOf(s), ids) {
			count[id/10-1][pos]++
		}
	}
	exp := float64(draws) / n
	chi := 0.0
	for i := range n {
		for j := range n {
			d := float64(count[i][j]) - exp
			chi += d * d / exp
		}
	}
	// 16 degrees of freedom: P(chi² > 39.25) = 0.001.
	if chi > 39.25 {
		t.Fatalf("chi² = %.1f over %v", chi, count)
	}
}

// TestBelowRejectsTheBiasedTail: for n = 3, 2^64 mod 3 = 1, so the single
// value 2^64-1 must be rejected and the next number of the stream used.
func TestBelowRejectsTheBiasedTail(t *testing.T) {
	s := &stream{seed: seedOf(9)}
	for range 1000 {
		if v := s.below(3); v >= 3 {
			t.Fatalf("below(3) = %d", v)
		}
	}
	skew := func(n uint64) uint64 { return (^uint64(0)%n + 1) % n }
	if skew(3) != 1 || skew(4) != 0 || skew(1<<63+1) != 1<<63-1 {
		t.Fatalf("skews %d %d %d", skew(3), skew(4), skew(1<<63+1))
	}
	// With n = 2^63+1 almost half the numbers are rejected: the results
	// must still be in range and the stream must move on.
	s = &stream{seed: seedOf(3)}
	for range 100 {
		if v := s.below(1<<63 + 1); v > 1<<63 {
			t.Fatalf("below(2^63+1) = %d", v)
		}
	}
	if s.k <= 100 {
		t.Fatalf("no number rejected in 100 draws of a half-rejecting range (k=%d)", s.k)
	}
}

func TestSelectionAndTurns(t *testing.T) {
	opens := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	r := Round{OpensAt: opens, ClosesAt: opens.Add(48 * time.Hour)}
	l := Lottery{SelectionMinutes: 30, SelectionGroup: 2}
	for pos, want := range map[int]time.Duration{1: 0, 2: 0, 3: 30 * time.Minute, 5: time.Hour} {
		if got := l.SelectionAt(r, pos); !got.Equal(opens.Add(want)) {
			t.Errorf("position %d: %v", pos, got)
		}
	}
	if l.SelectionEndsAt(r, 3) != nil {
		t.Fatal("a lottery without a window ends turns")
	}
	at := opens.Add(30 * time.Minute)
	open := &Turn{From: at}
	if e := TurnRefusal(open, 7, at.Add(-time.Second)); e == nil || e.Code != CodeNotYourTurn || !e.OpensAt.Equal(at) || e.SlotID != 7 {
		t.Fatalf("before one's time: %v", e)
	}
	if e := TurnRefusal(open, 7, at); e != nil {
		t.Fatalf("at one's time: %v", e)
	}
	if e := TurnRefusal(open, 7, r.ClosesAt); e != nil {
		t.Fatalf("a turn without a window ended: %v", e)
	}
	if e := TurnRefusal(nil, 7, at); e == nil || e.Code != CodeNotYourTurn {
		t.Fatalf("no turn: %v", e)
	}
}

func TestSelectionWindows(t *testing.T) {
	opens := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	r := Round{OpensAt: opens, ClosesAt: opens.Add(48 * time.Hour)}
	l := Lottery{SelectionMinutes: 2, SelectionGroup: 10, WindowMinutes: 2}
	// Positions 11 to 20 share the second window, [08:02, 08:04).
	from, end := l.SelectionAt(r, 11), l.SelectionEndsAt(r, 20)
	if !from.Equal(opens.Add(2*time.Minute)) || end == nil || !end.Equal(opens.Add(4*time.Minute)) {
		t.Fatalf("window of positions 11-20: %v to %v", from, end)
	}
	g := Registration{Position: 11, SelectionAt: &from, SelectionEndsAt: end}
	turn := g.Turn()
	for _, c := range []struct {
		at   time.Time
		code Code
	}{
		{from.Add(-time.Nanosecond), CodeNotYourTurn},
		{from, ""},
		{end.Add(-time.Nanosecond), ""},
		{*end, CodeTurnPassed},
		{r.ClosesAt, CodeTurnPassed},
	} {
		e := TurnRefusal(turn, 3, c.at)
		if (e == nil) != (c.code == "") || (e != nil && e.Code != c.code) {
			t.Errorf("at %v: %v, want %q", c.at, e, c.code)
		}
		if e != nil && e.Code == CodeTurnPassed && !e.OpensAt.Equal(*end) {
			t.Errorf("a passed turn names %v, not its end", e.OpensAt)
		}
	}
	if (Registration{}).Turn() != nil {
		t.Fatal("a registration not drawn has a turn")
	}
	bad := Lottery{SelectionGroup: 1, Seed: seedOf(1), RegistrationOpensAt: opens.Add(-time.Hour), RegistrationClosesAt: opens,
		WindowMinutes: -1}
	if ErrorCode(bad.Validate(r)) != CodeInvalidRequest {
		t.Fatal("a negative window accepted")
	}
	bad.WindowMinutes = MaxSelectionMinutes + 1
	if ErrorCode(bad.Validate(r)) != CodeInvalidRequest {
		t.Fatal("a window past the bound accepted")
	}
}

func TestRegistrationWindowAndDraw(t *testing.T) {
	opens := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	l := &Lottery{RegistrationOpensAt: opens.Add(-48 * time.Hour), RegistrationClosesAt: opens.Add(-time.Hour),
		SelectionGroup: 1, Seed: seedOf(1)}
	r := Round{OpensAt: opens, ClosesAt: opens.Add(time.Hour), State: RoundOpen}
	for _, c := range []struct {
		r    Round
		l    *Lottery
		at   time.Time
		code Code
	}{
		{r, l, l.RegistrationOpensAt.Add(-time.Second), CodeNotOpenYet},
		{r, l, l.RegistrationOpensAt, ""},
		{r, l, l.RegistrationClosesAt, CodeSlotClosed},
		{Round{State: RoundDraft}, l, l.RegistrationOpensAt, CodeNotOpenYet},
		{Round{State: RoundClosed}, l, l.RegistrationOpensAt, CodeSlotClosed},
		{r, nil, l.RegistrationOpensAt, CodeConflict},
	} {
		e := RegistrationRefusal(c.r, c.l, c.at)
		if (e == nil) != (c.code == "") || (e != nil && e.Code != c.code) {
			t.Errorf("%s at %v: %v, want %q", c.r.State, c.at, e, c.code)
		}
	}
	if e := DrawReady(l, l.RegistrationClosesAt.Add(-time.Nanosecond)); e == nil || e.Code != CodeNotOpenYet {
		t.Fatalf("draw before the close: %v", e)
	}
	if e := DrawReady(l, l.RegistrationClosesAt); e != nil {
		t.Fatalf("draw at the close: %v", e)
	}
	if err := l.Validate(r); err != nil {
		t.Fatalf("valid lottery: %v", err)
	}
	bad := *l
	bad.RegistrationClosesAt = opens.Add(time.Minute)
	if ErrorCode(bad.Validate(r)) != CodeInvalidRequest {
		t.Fatal("registration closing after the opening accepted")
	}
	bad = *l
	bad.Seed = nil
	if ErrorCode(bad.Validate(r)) != CodeInvalidRequest {
		t.Fatal("no seed accepted")
	}
}

func TestBookingRefusesOutOfTurn(t *testing.T) {
	opens := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	turn := opens.Add(time.Hour)
	rd := BookReads{Found: true, Slot: Slot{ID: 1, Capacity: 5, StartAt: opens.Add(72 * time.Hour), EndAt: opens.Add(96 * time.Hour), OpensAt: opens, Status: "OPEN"},
		Round: &Round{ID: 1, OpensAt: opens, ClosesAt: opens.Add(48 * time.Hour), State: RoundOpen, Quota: 1, Lottery: &Lottery{}},
		Turns: map[int64]Turn{1: {From: opens}, 2: {From: turn}, 4: {From: opens, Until: &opens}}}
	reqs := []BookRequest{{PatientID: 1, IdempotencyKey: "a"}, {PatientID: 2, IdempotencyKey: "b"}, {PatientID: 3, IdempotencyKey: "c"}}
	d := DecideBooking(reqs, rd, opens.Add(time.Minute))
	res, _ := d.Finish(make([]int64, len(d.Winners)))
	if len(d.Winners) != 1 || res[0].Err != nil || ErrorCode(res[1].Err) != CodeNotYourTurn || ErrorCode(res[2].Err) != CodeNotYourTurn {
		t.Fatalf("results %+v", res)
	}
	d = DecideBooking([]BookRequest{{PatientID: 4, IdempotencyKey: "d"}}, rd, opens.Add(time.Minute))
	if r, _ := d.Finish(nil); ErrorCode(r[0].Err) != CodeTurnPassed {
		t.Fatalf("after one's window: %v", r[0].Err)
	}
	d = DecideBooking(reqs[1:2], rd, turn)
	if r, _ := d.Finish([]int64{9}); r[0].Err != nil {
		t.Fatalf("at one's turn: %v", r[0].Err)
	}
}

func TestVerifyDraw(t *testing.T) {
	seed := seedOf(11)
	ids := []int64{5, 9, 12, 40, 41}
	d := Draw{Version: DrawVersion, Seed: hex.EncodeToString(seed), Commitment: Commit(seed), Order: DrawOrder(seed, ids)}
	if err := VerifyDraw(d, Commit(seed)); err != nil {
		t.Fatalf("the real draw: %v", err)
	}
	for name, bad := range map[string]func(*Draw){
		"another seed":       func(d *Draw) { d.Seed = hex.EncodeToString(seedOf(12)) },
		"another commitment": func(d *Draw) { d.Commitment = Commit(seedOf(12)) },
		"two swapped":        func(d *Draw) { d.Order[0], d.Order[1] = d.Order[1], d.Order[0] },
		"one more id":        func(d *Draw) { d.Order = append(d.Order, 99) },
		"one id less":        func(d *Draw) { d.Order = d.Order[1:] },
		"another version":    func(d *Draw) { d.Version = 2 },
		"a short seed":       func(d *Draw) { d.Seed = "abcd" },
	} {
		c := d
		c.Order = slices.Clone(d.Order)
		bad(&c)
		if name == "another seed" {
			c.Commitment = Commit(seedOf(12)) // consistent, but not the recorded one
			if err := VerifyDraw(c, Commit(seed)); err == nil {
				t.Errorf("%s accepted against the recorded commitment", name)
			}
			continue
		}
		if err := VerifyDraw(c, ""); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
