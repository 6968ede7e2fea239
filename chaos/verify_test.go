package chaos

import (
	"strings"
	"testing"
	"time"
)

func TestRowsCheckFindsEveryBreach(t *testing.T) {
	r := rows{
		slots: map[int64][2]int{1: {2, 2}, 2: {1, 1}, 3: {2, 1}},
		active: []activeRow{
			{id: 10, slot: 1, patient: 7, queue: 1},
			{id: 11, slot: 1, patient: 7, queue: 1}, // twice, same number
			{id: 12, slot: 2, patient: 8, queue: 1},
			{id: 13, slot: 2, patient: 9, queue: 2}, // over capacity
		},
	}
	over, twice, numbers, counters := r.check()
	if len(over) != 1 || !strings.Contains(over[0], "slot 2") {
		t.Errorf("over capacity: %v", over)
	}
	if len(twice) != 1 || len(numbers) != 1 {
		t.Errorf("twice %v, numbers %v", twice, numbers)
	}
	// Slot 2 counts 1 for 2 rows, slot 3 counts 1 for none.
	if len(counters) != 2 {
		t.Errorf("counters: %v", counters)
	}
	if o, tw, n, c := (rows{slots: map[int64][2]int{1: {2, 1}}, active: []activeRow{{id: 1, slot: 1, patient: 1, queue: 1}}}).check(); len(o)+len(tw)+len(n)+len(c) > 0 {
		t.Errorf("a consistent slot: %v %v %v %v", o, tw, n, c)
	}
}

func TestCheckOutage(t *testing.T) {
	from := time.Date(2026, 6, 1, 7, 0, 0, 0, time.UTC)
	o := outage{name: "stopped", from: from, to: from.Add(10 * time.Second)}
	cfg := Config{DBTimeout: 2 * time.Second, Margin: time.Second, Recovery: 5 * time.Second}
	at := func(start, took time.Duration, status int, retryAfter string) attempt {
		return attempt{Kind: "book", Start: from.Add(start), End: from.Add(start + took), Status: status, RetryAfter: retryAfter}
	}
	verdicts := func(as []attempt) map[string]error {
		got := map[string]error{}
		checkOutage(cfg, o, as, func(name string, err error) { got[name[strings.Index(name, ":")+2:]] = err })
		return got
	}

	good := verdicts([]attempt{
		at(time.Second, 2*time.Second, 503, "1"),
		at(5*time.Second, 10*time.Millisecond, 503, "1"),
		at(11*time.Second, 10*time.Millisecond, 201, ""),
	})
	for name, err := range good {
		if err != nil {
			t.Errorf("a good outage failed %q: %v", name, err)
		}
	}

	bad := verdicts([]attempt{
		at(time.Second, 4*time.Second, 503, "1"),         // late
		at(2*time.Second, 10*time.Millisecond, 500, ""),  // a 500
		at(3*time.Second, 10*time.Millisecond, 503, ""),  // no Retry-After
		at(17*time.Second, 10*time.Millisecond, 201, ""), // recovered after 7 s
	})
	failed := 0
	for _, err := range bad {
		if err != nil {
			failed++
		}
	}
	if failed != 4 {
		t.Errorf("%d of 4 checks failed on a bad outage: %v", failed, bad)
	}
}
