package schedule

import (
	"sort"
	"time"
)

// wallTimes finds the instants at which the clock in loc reads the wall time
// `minute` minutes after midnight of day d.
//
// Go's time.Date picks one of them for an ambiguous wall time and some
// instant for a nonexistent one, but does not promise which; slotd needs a
// deterministic answer, so this enumerates the zone periods around the wall
// time with ZoneBounds and checks, for each period's offset, whether the
// instant "wall - offset" actually falls inside that period.
//
// It returns the matching instants in increasing order: one on an ordinary
// day, two in a fall-back overlap, none in a spring-forward gap, in which
// case gapEnd is the transition instant that skipped the wall time, i.e. the
// first instant after the gap.
func wallTimes(loc *time.Location, d Date, minute int) (at []time.Time, gapEnd time.Time) {
	// naive is the wall time written as if it were UTC; an instant t shows
	// that wall time exactly when t + offset(t) == naive.
	naive := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC).Add(time.Duration(minute) * time.Minute)
	// Offsets in use stay within about ±15h, so every solution lies in this
	// window; periods are walked across it one by one.
	lo, hi := naive.Add(-16*time.Hour), naive.Add(16*time.Hour)

	t := lo
	havePrev := false
	var prevOff int
	for i := 0; i < 64; i++ { // a handful of transitions at most; 64 guards a broken tz database
		z := t.In(loc)
		_, off := z.Zone()
		start, end := z.ZoneBounds()
		cand := naive.Add(-time.Duration(off) * time.Second)
		if (start.IsZero() || !cand.Before(start)) && (end.IsZero() || cand.Before(end)) {
			at = append(at, cand)
		}
		// A gap at the boundary that began this period: the clock read up
		// to start+prevOff just before it and start+off from it on.
		if havePrev && off > prevOff && !start.IsZero() {
			if !naive.Before(start.Add(time.Duration(prevOff)*time.Second)) && naive.Before(start.Add(time.Duration(off)*time.Second)) {
				gapEnd = start.UTC()
			}
		}
		if end.IsZero() || end.After(hi) || !end.After(t) {
			break
		}
		havePrev, prevOff, t = true, off, end
	}
	if len(at) == 0 && gapEnd.IsZero() {
		// Unreachable with a sane tz database; fall back to Go's choice
		// rather than inventing an instant.
		at = append(at, time.Date(d.Year, d.Month, d.Day, minute/60, minute%60, 0, 0, loc))
	}
	for i := range at {
		at[i] = at[i].UTC()
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	return at, gapEnd
}

// firstInstant resolves a wall time used as a beginning: its first
// occurrence when it is ambiguous, the instant just after the gap when it
// does not exist. Beginning at the first occurrence never loses real time.
func firstInstant(loc *time.Location, d Date, minute int) time.Time {
	at, gapEnd := wallTimes(loc, d, minute)
	if len(at) > 0 {
		return at[0]
	}
	return gapEnd
}

// lastInstant resolves a wall time used as an end: its last occurrence not
// after limit when it is ambiguous, the instant just after the gap when it
// does not exist. Ending at the second occurrence keeps the repeated hour of
// a fall-back day inside the working period. limit is the end of the local
// day: in zones whose fall-back crosses midnight (America/Santiago) the
// second occurrence of 23:30 comes after the next day has begun, and a day's
// period must not spill into the next day, where its slots would overlap that
// day's.
func lastInstant(loc *time.Location, d Date, minute int, limit time.Time) time.Time {
	at, gapEnd := wallTimes(loc, d, minute)
	if len(at) == 0 {
		at = []time.Time{gapEnd}
	}
	for i := len(at) - 1; i >= 0; i-- {
		if !at[i].After(limit) {
			return at[i]
		}
	}
	return limit
}

// DayBounds returns the instants [start, end) of local day d in loc: from the
// first moment the clock shows d to the first moment it shows the next day.
// On DST days the day is 23 or 25 hours long (23.5/24.5 on Lord Howe); where
// midnight itself is skipped (spring-forward at 00:00) the day starts when
// the clock jumps. Both are in UTC. A nil loc means UTC.
func DayBounds(d Date, loc *time.Location) (start, end time.Time) {
	loc = orUTC(loc)
	return firstInstant(loc, d, 0), firstInstant(loc, d.AddDays(1), 0)
}
