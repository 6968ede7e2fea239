package schedule

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestSlotsProperties generates random schedules over random days in zones
// with unusual DST (30-minute on Lord Howe, midnight transitions in
// Santiago, none in Kolkata) and checks the invariants every store and
// client relies on, plus an independent oracle: the working period found by
// scanning the day minute by minute, which shares no code with the
// ZoneBounds-based resolution in zone.go.
func TestSlotsProperties(t *testing.T) {
	zones := []string{"Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC", "America/Santiago"}
	first, last := Date{2025, time.January, 1}, Date{2026, time.December, 31}
	span := 0
	for d := first; !last.Before(d); d = d.AddDays(1) {
		span++
	}
	type zone struct {
		name     string
		loc      *time.Location
		dstDays  []Date // days with a transition, drawn from more often: random days rarely hit one
		shiftDay map[Date]bool
	}
	var zs []zone
	for _, name := range zones {
		z := zone{name: name, loc: mustLoc(t, name), shiftDay: map[Date]bool{}}
		for d := first; !last.Before(d); d = d.AddDays(1) {
			if hasTransition(d, z.loc) {
				z.dstDays = append(z.dstDays, d)
				z.shiftDay[d] = true
			}
		}
		zs = append(zs, z)
	}

	iterations := 3000
	if testing.Short() {
		iterations = 200
	}
	rng := rand.New(rand.NewPCG(2026, 329))
	stats := map[string]int{}
	for it := 0; it < iterations; it++ {
		z := zs[rng.IntN(len(zs))]
		from := first.AddDays(rng.IntN(span))
		if len(z.dstDays) > 0 && rng.IntN(3) == 0 {
			from = z.dstDays[rng.IntN(len(z.dstDays))].AddDays(-rng.IntN(2))
		}
		to := from.AddDays(rng.IntN(3))
		s := randomSchedule(rng)
		if err := Normalize(&s); err != nil {
			t.Fatalf("randomSchedule made an invalid schedule: %v", err)
		}
		desc := fmt.Sprintf("%s %s..%s %s-%s/%d weekdays %v", z.name, from, to, s.StartTime, s.EndTime, s.SlotMinutes, s.Weekdays)
		got := Slots(s, z.loc, from, to)
		step := time.Duration(s.SlotMinutes) * time.Minute

		// Global order: strictly increasing starts, no overlap, exact length.
		for i, sl := range got {
			if sl.EndAt.Sub(sl.StartAt) != step {
				t.Fatalf("%s: slot %d lasts %v", desc, i, sl.EndAt.Sub(sl.StartAt))
			}
			if i > 0 && (!got[i-1].StartAt.Before(sl.StartAt) || sl.StartAt.Before(got[i-1].EndAt)) {
				t.Fatalf("%s: slot %d (%s) overlaps or precedes slot %d (%s)", desc, i, sl.StartAt, i-1, got[i-1].StartAt)
			}
			if sl.Status != booking.SlotOpen || sl.DoctorID != s.DoctorID || sl.ScheduleID != s.ID || sl.Capacity != s.Capacity {
				t.Fatalf("%s: slot %d fields %+v", desc, i, sl)
			}
		}

		// Per day: compare with the oracle and check DayBounds containment.
		k := 0
		for d := from; !to.Before(d); d = d.AddDays(1) {
			listed := false
			for _, w := range s.Weekdays {
				listed = listed || w == d.Weekday()
			}
			dayStart, dayEnd := DayBounds(d, z.loc)
			if it%10 == 0 { // the bounds oracle is slower; sample it
				if os := oracleDayStart(d, z.loc); !os.Equal(dayStart) {
					t.Fatalf("%s: DayBounds(%s) start %s, oracle %s", desc, d, dayStart, os)
				}
			}
			if h := dayEnd.Sub(dayStart); h < 22*time.Hour || h > 26*time.Hour {
				t.Fatalf("%s: day %s lasts %v", desc, d, h)
			}
			var want []time.Time
			if listed {
				want = oracleStarts(s, z.loc, d, dayStart, dayEnd)
			}
			for j, w := range want {
				if k+j >= len(got) || !got[k+j].StartAt.Equal(w) {
					t.Fatalf("%s: day %s slot %d: want start %s, got %v", desc, d, j, w, describe(got, k+j))
				}
				sl := got[k+j]
				if sl.StartAt.Before(dayStart) || sl.EndAt.After(dayEnd) {
					t.Fatalf("%s: slot %s..%s outside day %s [%s, %s)", desc, sl.StartAt, sl.EndAt, d, dayStart, dayEnd)
				}
				if DateOf(sl.OpensAt, z.loc) != d.AddDays(-s.HorizonDays) {
					t.Fatalf("%s: opensAt %s is not on day %s", desc, sl.OpensAt, d.AddDays(-s.HorizonDays))
				}
			}
			if listed && !z.shiftDay[d] {
				startMin, _ := parseClock(s.StartTime)
				endMin, _ := parseClock(s.EndTime)
				if n := (endMin - startMin) / s.SlotMinutes; len(want) != n {
					t.Fatalf("%s: ordinary day %s has %d slots, want %d", desc, d, len(want), n)
				}
				stats["ordinary"]++
			} else if listed {
				stats["dst"]++
			}
			k += len(want)
		}
		if k != len(got) {
			t.Fatalf("%s: %d slots, oracle %d", desc, len(got), k)
		}
	}
	t.Logf("days checked: %v", stats)
	if stats["dst"] < iterations/40 { // about a third of iterations aim at a transition
		t.Errorf("only %d DST days exercised", stats["dst"])
	}
}

// randomSchedule draws a valid schedule, half the time with its period in
// the small hours where DST transitions happen.
func randomSchedule(rng *rand.Rand) booking.Schedule {
	var s booking.Schedule
	for len(s.Weekdays) == 0 {
		for w := time.Sunday; w <= time.Saturday; w++ {
			if rng.IntN(2) == 0 {
				s.Weekdays = append(s.Weekdays, w)
			}
		}
	}
	var start, end int
	if rng.IntN(2) == 0 {
		start = rng.IntN(240)
		end = start + 1 + rng.IntN(300-start)
	} else {
		start = rng.IntN(1439)
		end = start + 1 + rng.IntN(1440-start-1)
	}
	sizes := []int{5, 10, 15, 20, 30, 45, 60, 90}
	slot := sizes[rng.IntN(len(sizes))]
	if slot > end-start || rng.IntN(5) == 0 {
		slot = 1 + rng.IntN(end-start)
	}
	s.ID, s.DoctorID = rng.Int64N(100)+1, rng.Int64N(100)+1
	s.StartTime = fmt.Sprintf("%02d:%02d", start/60, start%60)
	s.EndTime = fmt.Sprintf("%02d:%02d", end/60, end%60)
	s.SlotMinutes, s.Capacity = slot, 1+rng.IntN(5)
	s.HorizonDays = 1 + rng.IntN(30)
	return s
}

// hasTransition reports whether the zone may change offset during day d:
// it samples every half hour (Lord Howe shifts by 30 minutes) over every UTC
// instant that can belong to local day d in any zone (offsets -12h..+14h),
// so it errs towards calling a neighbouring day a DST day, which only skips
// the exact-count check there.
func hasTransition(d Date, loc *time.Location) bool {
	noon := time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC)
	_, first := noon.Add(-27 * time.Hour).In(loc).Zone()
	for m := -27 * 60; m <= 37*60; m += 30 {
		if _, o := noon.Add(time.Duration(m) * time.Minute).In(loc).Zone(); o != first {
			return true
		}
	}
	return false
}

// wallKey orders local wall-clock readings: day first, then minute.
func wallKey(t time.Time, loc *time.Location) (Date, int) {
	l := t.In(loc)
	return dateOf(l), l.Hour()*60 + l.Minute()
}

func wallLess(d1 Date, m1 int, d2 Date, m2 int) bool {
	if d1 != d2 {
		return d1.Before(d2)
	}
	return m1 < m2
}

// oracleDayStart scans minute by minute for the first instant the clock
// shows day d (or a later day, if d is skipped entirely).
func oracleDayStart(d Date, loc *time.Location) time.Time {
	t := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Add(-16 * time.Hour)
	for {
		if wd, _ := wallKey(t, loc); !wd.Before(d) {
			return t
		}
		t = t.Add(time.Minute)
	}
}

// oracleStarts computes the day's slot starts by brute force: the period
// starts at the first instant of the day whose wall clock reads StartTime or
// later, and ends just after the last instant of the day whose wall clock
// reads earlier than EndTime. That is the package's rule (gap → just after
// it; overlap → first occurrence for a start, second for an end) restated
// as a scan. All transitions in the tested zones fall on whole minutes.
func oracleStarts(s booking.Schedule, loc *time.Location, d Date, dayStart, dayEnd time.Time) []time.Time {
	startMin, _ := parseClock(s.StartTime)
	endMin, _ := parseClock(s.EndTime)
	var begin, finish time.Time
	found := false
	finish = dayStart
	for t := dayStart; t.Before(dayEnd); t = t.Add(time.Minute) {
		wd, wm := wallKey(t, loc)
		if !found && !wallLess(wd, wm, d, startMin) {
			begin, found = t, true
		}
		if wallLess(wd, wm, d, endMin) {
			finish = t.Add(time.Minute)
		}
	}
	if !found {
		return nil
	}
	var out []time.Time
	step := time.Duration(s.SlotMinutes) * time.Minute
	for t := begin; !t.Add(step).After(finish); t = t.Add(step) {
		out = append(out, t.UTC())
	}
	return out
}

func describe(got []booking.Slot, i int) string {
	if i >= len(got) {
		return "nothing"
	}
	return got[i].StartAt.String()
}
