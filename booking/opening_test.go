package booking

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A token admits the patient it was issued to, to its opening, until it
// expires; anything else about it makes it no admission at all.
func TestAdmissionTokens(t *testing.T) {
	a := NewAdmissionTokens([]byte("key-one"))
	exp := t0.Add(10 * time.Minute)
	tok := a.Token(42, 7, exp)
	if got := a.Verify(tok, 7, t0); got != 42 {
		t.Fatalf("a fresh token verifies as %d, want 42", got)
	}
	mac := tok[strings.LastIndexByte(tok, '.')+1:]
	for name, tc := range map[string]struct {
		tok     string
		patient int64
		at      time.Time
		tokens  AdmissionTokens
	}{
		"expired":           {tok, 7, exp, a},
		"someone else's":    {tok, 8, t0, a},
		"another key":       {tok, 7, t0, NewAdmissionTokens([]byte("key-two"))},
		"no key":            {tok, 7, t0, AdmissionTokens{}},
		"another opening":   {"43" + tok[2:], 7, t0, a},
		"a later expiry":    {"42." + "9" + tok[3:], 7, t0, a},
		"a changed mac":     {tok[:len(tok)-2] + "AA", 7, t0, a},
		"two parts":         {"42." + mac, 7, t0, a},
		"not numbers":       {"x.y." + mac, 7, t0, a},
		"empty":             {"", 7, t0, a},
		"too long":          {tok + strings.Repeat("A", MaxAdmissionTokenLen), 7, t0, a},
		"opening zero":      {a.Token(0, 7, exp), 7, t0, a},
		"mac not in base64": {"42.1.!!!", 7, t0, a},
	} {
		if got := tc.tokens.Verify(tc.tok, tc.patient, tc.at); got != 0 {
			t.Errorf("%s: verified as opening %d", name, got)
		}
	}
}

// The queue's order at the draw: the pre-queue as the lottery's DrawOrder
// shuffles it on the seed, then those who came after the opening by id.
func TestQueueOrder(t *testing.T) {
	seed := slices.Repeat([]byte{3}, SeedSize)
	o := Opening{ID: 1, OpensAt: t0, Seed: seed}
	var entries []OpeningEntry
	var pre []int64
	for id := int64(1); id <= 40; id++ {
		at := t0.Add(-time.Duration(41-id) * time.Second)
		if id > 30 {
			at = t0.Add(time.Duration(id) * time.Second) // after the opening
		} else {
			pre = append(pre, id)
		}
		entries = append(entries, OpeningEntry{ID: id, JoinedAt: at})
	}
	// The store's rows come in no order.
	slices.Reverse(entries)
	got := QueueOrder(o, entries)
	want := append(DrawOrder(seed, pre), 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if slices.Equal(got[:30], pre) {
		t.Fatal("the pre-queue kept its arrival order: no draw")
	}
	other := QueueOrder(Opening{OpensAt: t0, Seed: slices.Repeat([]byte{4}, SeedSize)}, entries)
	if slices.Equal(other[:30], got[:30]) {
		t.Fatal("another seed gave the same order")
	}
}

// A slot of an opening refuses a patient's booking without that opening's
// admission, before the policy and the places; staff book for callers.
func TestDecideBookingAdmission(t *testing.T) {
	rd := BookReads{Found: true, Slot: openSlot(5, 0), OpeningID: 42}
	admitted, other, staff, none := bookReq(1, "a"), bookReq(2, "b"), bookReq(3, "c"), bookReq(4, "d")
	admitted.Admission, other.Admission, staff.Staff = 42, 41, true
	rd.Load = map[int64]PatientLoad{4: {Active: 99}} // the cap would refuse 4 too: admission comes first
	rd.Policy = Policy{MaxActive: 10}
	d := DecideBooking([]BookRequest{admitted, other, staff, none}, rd, t0)
	res, _ := d.Finish([]int64{100, 101})
	if got, want := codes(res), []Code{"", CodeNotAdmitted, "", CodeNotAdmitted}; !slices.Equal(got, want) {
		t.Fatalf("codes %v, want %v", got, want)
	}
	e := res[1].Err.(*Error)
	if e.SlotID != 7 || e.Format == "" {
		t.Fatalf("refusal %+v", e)
	}
	// Without an opening, an admission is not looked at.
	rd.OpeningID = 0
	res, _ = DecideBooking([]BookRequest{other}, rd, t0).Finish([]int64{102})
	if res[0].Err != nil {
		t.Fatalf("an ordinary slot refused a booking: %v", res[0].Err)
	}
}

// A place before the draw is not known: everyone else is ahead and the
// wait runs to the opening plus half the queue; after it, the wait is the
// distance to the admitted front at the rate.
func TestPlaceOf(t *testing.T) {
	drawn := t0
	o := Opening{ID: 1, ScheduleID: 2, OpensAt: t0, Queued: 21}
	e := OpeningEntry{ID: 5, JoinedAt: t0.Add(-time.Hour)}
	p := PlaceOf(o, e, 10, t0.Add(-time.Minute))
	if !p.PreQueue || p.Drawn || p.Position != 0 || p.Ahead != 20 || p.ExpectedWaitSeconds != 61 || p.Admitted {
		t.Fatalf("before the draw: %+v", p)
	}
	o.DrawnAt, o.AdmittedThrough = &drawn, 4
	e.Position = 15
	p = PlaceOf(o, e, 5, t0)
	if !p.Drawn || p.Ahead != 10 || p.ExpectedWaitSeconds != 2 || p.Admitted {
		t.Fatalf("after the draw: %+v", p)
	}
	o.AdmittedThrough = 15
	if p = PlaceOf(o, e, 5, t0); !p.Admitted || p.Ahead != 0 || p.ExpectedWaitSeconds != 0 {
		t.Fatalf("admitted: %+v", p)
	}
	wide := OpeningRoom{Free: 100}
	if o.Admit(100, wide) != 6 || (Opening{Queued: 3}).Admit(100, wide) != 0 || o.Admit(0, wide) != 0 {
		t.Fatalf("admit: %d", o.Admit(100, wide))
	}
	// The places nobody admitted holds bound it: 4 free, 3 held.
	if got := o.Admit(100, OpeningRoom{Free: 4, Holding: 3}); got != 1 {
		t.Fatalf("admit within the room: %d, want 1", got)
	}
	if got := o.Admit(100, OpeningRoom{Free: 2, Holding: 3}); got != 0 {
		t.Fatalf("admit beyond the room: %d, want 0", got)
	}
}

// An admission lasts its TTL from when it was given, then ends unused.
func TestAdmissionExpires(t *testing.T) {
	drawn := t0
	o := Opening{ID: 1, OpensAt: t0, Queued: 5, DrawnAt: &drawn, AdmittedThrough: 2}
	at := t0.Add(time.Second)
	e := OpeningEntry{Position: 2, AdmittedAt: &at}
	if got := e.AdmissionExpires(time.Minute); !got.Equal(at.Add(time.Minute)) {
		t.Fatalf("expires %v", got)
	}
	if p := PlaceOf(o, e, 5, at).Expire(e, time.Minute, at.Add(59*time.Second)); !p.Admitted || p.AdmissionExpired {
		t.Fatalf("within its life: %+v", p)
	}
	if p := PlaceOf(o, e, 5, at).Expire(e, time.Minute, at.Add(time.Minute)); p.Admitted || !p.AdmissionExpired {
		t.Fatalf("after its life: %+v", p)
	}
	waiting := OpeningEntry{Position: 3}
	if p := PlaceOf(o, waiting, 5, at).Expire(waiting, time.Minute, at); p.Admitted || p.AdmissionExpired || !waiting.AdmissionExpires(time.Minute).IsZero() {
		t.Fatalf("not admitted: %+v", p)
	}
}

// An opening is announced in the future, for a schedule, with a seed.
func TestOpeningValidate(t *testing.T) {
	seed := make([]byte, SeedSize)
	ok := Opening{ScheduleID: 1, OpensAt: t0.Add(time.Hour), Seed: seed}
	if err := ok.Validate(t0); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]Opening{
		"no schedule": {OpensAt: t0.Add(time.Hour), Seed: seed},
		"past":        {ScheduleID: 1, OpensAt: t0, Seed: seed},
		"no seed":     {ScheduleID: 1, OpensAt: t0.Add(time.Hour)},
	} {
		if ErrorCode(o.Validate(t0)) != CodeInvalidRequest {
			t.Errorf("%s: %v", name, o.Validate(t0))
		}
	}
}

// Inversions counts the pairs served against their positions, as the
// quadratic definition does; a tie in time is no inversion.
func TestInversions(t *testing.T) {
	brute := func(s []Served) int64 {
		var n int64
		for i := range s {
			for j := range s {
				if s[i].Position < s[j].Position && s[j].At.Before(s[i].At) {
					n++
				}
			}
		}
		return n
	}
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	in := []Served{{1, 1, at(1)}, {2, 1, at(2)}, {3, 1, at(3)}}
	if Inversions(in) != 0 {
		t.Fatal("served in order: inversions")
	}
	rev := []Served{{1, 1, at(5)}, {2, 1, at(4)}, {3, 1, at(3)}, {4, 1, at(2)}, {5, 1, at(1)}}
	if got := Inversions(rev); got != 10 {
		t.Fatalf("reversed five: %d, want 10", got)
	}
	tie := []Served{{2, 1, at(1)}, {1, 1, at(1)}}
	if got := Inversions(tie); got != 0 {
		t.Fatalf("a tie: %d", got)
	}
	var mixed []Served
	for i := range 200 {
		mixed = append(mixed, Served{Position: (i*37)%200 + 1, SlotID: int64(i % 3), At: at((i * 53) % 97)})
	}
	if got, want := Inversions(mixed), brute(mixed); got != want || want == 0 {
		t.Fatalf("mixed: %d, want %d", got, want)
	}
}

// The report's times count from the opening; sell-out only when sold out.
func TestOpeningFactsReport(t *testing.T) {
	first, last := t0.Add(2*time.Second), t0.Add(9*time.Second)
	f := OpeningFacts{Opening: Opening{ID: 4, OpensAt: t0, Queued: 10, AdmittedThrough: 6}, Places: 3, Sold: 2,
		FirstSale: &first, LastSale: &last,
		Served: []Served{{2, 1, first}, {1, 2, last}}}
	r := f.Report(RequestStats{Total: 7})
	if r.FirstSaleSeconds == nil || *r.FirstSaleSeconds != 2 || r.SellOutSeconds != nil || r.Inversions != 1 || r.LaneInversions != 0 ||
		r.People != 10 || r.Admitted != 6 || r.ServedFromQueue != 2 || r.Requests.Total != 7 {
		t.Fatalf("report %+v", r)
	}
	f.Sold = 3
	if r = f.Report(RequestStats{}); r.SellOutSeconds == nil || *r.SellOutSeconds != 9 {
		t.Fatalf("sold out: %+v", r)
	}
}
