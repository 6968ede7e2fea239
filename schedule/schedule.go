// Package schedule turns schedules into slots. It is pure: no database, no
// clock; Apply is the one function that touches a store, and only to
// insert. The service package calls it for every slot generation.
//
// # Time zones and DST
//
// A schedule is written in the resource's local wall-clock time ("Mondays
// 09:00–12:00, 30-minute slots"), but a slot is a span of real time: a
// patient waits 30 real minutes, not 30 minutes of clock face. So on each
// local day the working period runs from the instant of StartTime to the
// instant of EndTime on that day, and slots tile that real time in steps of
// SlotMinutes of elapsed time. Every slot is therefore exactly SlotMinutes
// long; the last one ends at or before the period's end (no partial slot).
//
// Wall times that are not a single instant are resolved deterministically,
// not left to time.Date (which does not promise which occurrence it picks):
//
//   - a wall time in a spring-forward gap (does not exist) resolves to the
//     instant just after the gap;
//   - a wall time in a fall-back overlap (occurs twice) resolves to its first
//     occurrence as a start and its second occurrence as an end, so the
//     period covers all the real time the clock spends inside it.
//
// Examples for Europe/Paris with 01:00–04:00 and 30-minute slots: on
// 2026-03-29 (02:00→03:00) the period is two real hours and gives slots at
// 01:00, 01:30, 03:00 and 03:30 local; on 2026-10-25 (03:00→02:00) it is
// four real hours and gives eight slots, 02:00 and 02:30 appearing twice
// with different offsets, as different instants.
//
// A day's period never leaves the day (see DayBounds): where a fall-back
// crosses midnight the end is the last occurrence within the day, so one
// day's slots never overlap the next day's. All instants produced are UTC,
// which is how they are stored.
package schedule

import (
	"context"
	"slices"
	"time"

	"github.com/slotd/slotd/booking"
)

// insertChunk bounds how many slots go to InsertSlots at once: large enough
// that a 14-day horizon of a busy doctor is one round trip, small enough to
// stay well under database parameter limits and to keep memory flat when a
// long range is (re)generated.
const insertChunk = 2000

// Normalize validates s and fills its defaults (HorizonDays 14, OpensAtTime
// "07:00", HoldMinutes 15) in place, so that every later step can rely on a
// well-formed schedule instead of re-checking. Weekdays must be non-empty,
// each in Sunday..Saturday and without duplicates; they are stored sorted
// (a copy, the caller's slice is not reordered) because the stores keep them
// as a bit set and a round trip should compare equal. StartTime, EndTime and
// OpensAtTime are strict "HH:MM" (00:00..23:59), StartTime before EndTime;
// SlotMinutes, Capacity, FeeCents, HorizonDays and HoldMinutes are within
// booking's ranges (booking.MinSlotMinutes...), and the wall-clock period
// must hold at least one slot.
//
// Errors are *booking.Error with CodeInvalidRequest and a message naming the
// JSON field, so an admin client can point at it.
func Normalize(s *booking.Schedule) error {
	bad := func(format string, args ...any) error {
		return booking.Errorf(booking.CodeInvalidRequest, format, args...)
	}
	if len(s.Weekdays) == 0 {
		return bad("weekdays: at least one weekday is required")
	}
	var seen [7]bool
	for _, w := range s.Weekdays {
		if w < time.Sunday || w > time.Saturday {
			return bad("weekdays: %d is not a weekday (0 = Sunday .. 6 = Saturday)", int(w))
		}
		if seen[w] {
			return bad("weekdays: %s is listed twice", w)
		}
		seen[w] = true
	}
	wd := slices.Clone(s.Weekdays)
	slices.Sort(wd)

	start, ok := parseClock(s.StartTime)
	if !ok {
		return bad("startTime: %q is not a time HH:MM", s.StartTime)
	}
	end, ok := parseClock(s.EndTime)
	if !ok {
		return bad("endTime: %q is not a time HH:MM", s.EndTime)
	}
	if start >= end {
		return bad("endTime: %s is not after startTime %s", s.EndTime, s.StartTime)
	}
	if s.SlotMinutes < booking.MinSlotMinutes || s.SlotMinutes > booking.MaxSlotMinutes {
		return bad("slotMinutes: %d is not in %d..%d", s.SlotMinutes, booking.MinSlotMinutes, booking.MaxSlotMinutes)
	}
	if end-start < s.SlotMinutes {
		return bad("slotMinutes: %d does not fit between startTime %s and endTime %s", s.SlotMinutes, s.StartTime, s.EndTime)
	}
	if s.Capacity < booking.MinCapacity || s.Capacity > booking.MaxCapacity {
		return bad("capacity: %d is not in %d..%d", s.Capacity, booking.MinCapacity, booking.MaxCapacity)
	}
	if s.FeeCents < 0 || s.FeeCents > booking.MaxFeeCents {
		return bad("fee: %d is not in 0..%d", s.FeeCents, booking.MaxFeeCents)
	}
	horizon := s.HorizonDays
	if horizon == 0 {
		horizon = booking.DefaultHorizonDays
	}
	if horizon < booking.MinHorizonDays || horizon > booking.MaxHorizonDays {
		return bad("horizonDays: %d is not in %d..%d", s.HorizonDays, booking.MinHorizonDays, booking.MaxHorizonDays)
	}
	opens := s.OpensAtTime
	if opens == "" {
		opens = booking.DefaultOpensAtTime
	}
	if _, ok := parseClock(opens); !ok {
		return bad("opensAtTime: %q is not a time HH:MM", s.OpensAtTime)
	}
	hold := s.HoldMinutes
	if hold == 0 {
		hold = booking.DefaultHoldMinutes
	}
	if hold < booking.MinHoldMinutes || hold > booking.MaxHoldMinutes {
		return bad("holdMinutes: %d is not in %d..%d", s.HoldMinutes, booking.MinHoldMinutes, booking.MaxHoldMinutes)
	}
	// Only now, with everything valid, is s changed: a failed Normalize
	// leaves the caller's schedule as it was.
	s.Weekdays, s.HorizonDays, s.OpensAtTime, s.HoldMinutes = wd, horizon, opens, hold
	return nil
}

// parseClock parses a strict "HH:MM" (two digits each, 00:00..23:59) into
// minutes after midnight. Lenient forms ("9:00", "09:00:00") are refused so
// that one schedule has one spelling.
func parseClock(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	if h > 23 || m > 59 {
		return 0, false
	}
	return h*60 + m, true
}

// Slots returns the slots of s for every local day in [from, to] (inclusive)
// whose weekday s lists, in order of start; see the package comment for how
// DST days are tiled. Each slot carries the schedule's doctor, id, capacity,
// fee and hold time (HoldMinutes*60 seconds), is OPEN, and opens for booking
// HorizonDays before its day at OpensAtTime local time (first occurrence if
// ambiguous, just after the gap if skipped). IDs are zero: the store assigns
// them.
//
// Slots is pure and deterministic, which is what makes regeneration
// idempotent: the same schedule always yields the same (doctor, start) keys.
// Defaults are applied as Normalize would; an invalid schedule yields no
// slots rather than a panic or an endless loop (callers validate with
// Normalize first to get the reason). A nil loc means UTC.
func Slots(s booking.Schedule, loc *time.Location, from, to Date) []booking.Slot {
	var out []booking.Slot
	eachDay(s, loc, from, to, func(day []booking.Slot) bool {
		out = append(out, day...)
		return true
	})
	return out
}

// eachDay generates s's slots one day at a time and hands each non-empty day
// to yield, until yield returns false. It is Slots without holding the whole
// range in memory, for Apply.
func eachDay(s booking.Schedule, loc *time.Location, from, to Date, yield func([]booking.Slot) bool) {
	if Normalize(&s) != nil {
		return
	}
	loc = orUTC(loc)
	startMin, _ := parseClock(s.StartTime)
	endMin, _ := parseClock(s.EndTime)
	opensMin, _ := parseClock(s.OpensAtTime)
	step := time.Duration(s.SlotMinutes) * time.Minute
	var days [7]bool
	for _, w := range s.Weekdays {
		days[w] = true
	}
	for d := from; !to.Before(d); d = d.AddDays(1) {
		if !days[d.Weekday()] {
			continue
		}
		_, dayEnd := DayBounds(d, loc)
		begin := firstInstant(loc, d, startMin)
		finish := lastInstant(loc, d, endMin, dayEnd)
		opensAt := firstInstant(loc, d.AddDays(-s.HorizonDays), opensMin)
		var day []booking.Slot
		// Step in elapsed time from the real start: on a DST day this is
		// what keeps every slot SlotMinutes long with no gap or overlap.
		for t := begin; !t.Add(step).After(finish); t = t.Add(step) {
			day = append(day, booking.Slot{
				DoctorID:    s.DoctorID,
				ScheduleID:  s.ID,
				StartAt:     t,
				EndAt:       t.Add(step),
				Capacity:    s.Capacity,
				OpensAt:     opensAt,
				Status:      booking.SlotOpen,
				FeeCents:    s.FeeCents,
				HoldSeconds: s.HoldMinutes * 60,
			})
		}
		if len(day) > 0 && !yield(day) {
			return
		}
	}
}

// Generation is a schedule's generation: its slots for the local days
// [From, To] in Location (nil: UTC).
type Generation struct {
	Schedule booking.Schedule
	Location *time.Location
	From, To Date
}

// Apply generates g's slots and inserts the
// ones that do not exist yet through store.InsertSlots, in chunks of at most
// a few thousand so that a long range neither builds one huge statement nor
// holds every slot in memory. It reports how many slots it created and how
// many already existed (generated - created): because generation is
// deterministic and InsertSlots skips existing (doctor, start) keys, a
// second run creates nothing and reports everything as existing.
//
// The schedule is validated with Normalize first (on a copy); an invalid
// schedule or a range with From after To is a *booking.Error with
// CodeInvalidRequest. On a store error the counts cover the chunks done
// before it.
func Apply(ctx context.Context, store SlotInserter, g Generation) (created, existing int, err error) {
	s, loc, from, to := g.Schedule, g.Location, g.From, g.To
	if err := Normalize(&s); err != nil {
		return 0, 0, err
	}
	if to.Before(from) {
		return 0, 0, booking.Errorf(booking.CodeInvalidRequest, "to: %s is before from %s", to, from)
	}
	var batch []booking.Slot
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := store.InsertSlots(ctx, batch)
		if err != nil {
			return err
		}
		created += n
		existing += len(batch) - n
		batch = nil // a fresh array: the store may still hold the one it was given

		return nil
	}
	eachDay(s, loc, from, to, func(day []booking.Slot) bool {
		for len(day) > 0 {
			n := min(insertChunk-len(batch), len(day))
			batch = append(batch, day[:n]...)
			day = day[n:]
			if len(batch) == insertChunk {
				if err = flush(); err != nil {
					return false
				}
			}
		}
		return true
	})
	if err != nil {
		return created, existing, err
	}
	if err := flush(); err != nil {
		return created, existing, err
	}
	return created, existing, nil
}

// Window returns the local days [from, to] for which s's slots should exist
// at now: today and the HorizonDays days after it, in loc. Rolling generation
// applies this window every day, so the horizon advances by one day each day
// and a day's slots exist before they open (they open HorizonDays before the
// day, i.e. on today's date at the far end of the window). A nil loc means UTC.
func Window(s booking.Schedule, loc *time.Location, now time.Time) (from, to Date) {
	h := s.HorizonDays
	if h <= 0 {
		h = booking.DefaultHorizonDays
	}
	today := DateOf(now, loc)
	return today, today.AddDays(h)
}

// SlotInserter adds slots that do not exist yet (a store's InsertSlots):
// all that Apply needs of a store.
type SlotInserter interface {
	InsertSlots(ctx context.Context, slots []booking.Slot) (created int, err error)
}
