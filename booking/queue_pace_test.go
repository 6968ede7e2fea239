package booking

import (
	"testing"
	"time"
)

func mins(ms ...float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Minute))
	}
	return out
}

func TestPace(t *testing.T) {
	for _, c := range []struct {
		name string
		done []time.Duration
		want int
	}{
		{"none", nil, 0},
		{"too few", mins(4, 6), 0},
		{"odd: the middle one", mins(12, 4, 6), 6},
		{"even: between the middle two", mins(4, 6, 8, 30), 7},
		{"one long case moves nothing", mins(5, 5, 5, 90), 5},
		{"rounded to the minute", mins(6.4, 6.4, 6.6), 6},
		{"at least a minute", mins(0.2, 0.1, 0.3), 1},
		{"a clock stepped back is left out", mins(-3, 8, 9), 0},
		{"and the rest counts", mins(-3, 8, 9, 10), 9},
	} {
		if got := Pace(c.done); got != c.want {
			t.Errorf("%s: Pace(%v) = %d, want %d", c.name, c.done, got, c.want)
		}
	}
}

// TestQueuePositionAtPace: with fewer than PaceMinSamples completed, the
// estimate is the slots' shares (10 each); with them, the doctor's median
// (4) for everyone ahead and the one in consultation.
func TestQueuePositionAtPace(t *testing.T) {
	d := QueueDay{DoctorID: 7, Entries: []QueueEntry{arrived(1, 1, 0), arrived(2, 2, 0), arrived(3, 3, 0), arrived(4, 4, 0)}}
	d, _ = call(t, d, 3)
	d.Done = mins(4, 5)
	if p := d.Position(4, 3); p.Ahead != 2 || p.Minutes != 30 || p.Pace != 0 {
		t.Fatalf("two completed: %+v, want 3 × the slot's 10 minutes", p)
	}
	d.Done = mins(4, 5, 3, 4)
	if p := d.Position(4, 3); p.Ahead != 2 || p.Minutes != 12 || p.Pace != 4 {
		t.Fatalf("four completed: %+v, want 3 × 4 minutes", p)
	}
	if p := d.Position(2, 3); p.Ahead != 0 || p.Minutes != 4 {
		t.Fatalf("next: %+v, want the one called, 4 minutes", p)
	}
	if p := d.Position(1, 3); p.Minutes != 0 || p.Step != QueueCalled {
		t.Fatalf("the one called waits for nothing: %+v", p)
	}
}
