package booking

import (
	"time"
)

// DueDays is the part of window [first, last] (UTC midnights of local
// days) that a rolling pass still has to generate for sc: the days after
// its GeneratedThrough mark, or all of them without a mark or when full.
// A pass with nothing due makes no store call for the schedule.
func DueDays(sc Schedule, first, last time.Time, full bool) (time.Time, time.Time, bool) {
	if !full && sc.GeneratedThrough != "" {
		if m, err := time.Parse(time.DateOnly, sc.GeneratedThrough); err == nil && !m.Before(first) {
			first = m.AddDate(0, 0, 1)
		}
	}
	return first, last, !last.Before(first)
}

// LiftedDays is the part of window [first, last] that lifting closure c
// must generate again: generation skipped the slots it covered, and the
// mark has moved past them. A day on each side covers the zones.
func LiftedDays(c Suspension, first, last time.Time) (time.Time, time.Time, bool) {
	from := c.From.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1)
	to := c.To.UTC().Truncate(24*time.Hour).AddDate(0, 0, 1)
	if from.After(first) {
		first = from
	}
	if to.Before(last) {
		last = to
	}
	return first, last, !last.Before(first)
}

// Concerns reports whether closure c covers the slots of a doctor of
// department dept (whatever its period).
func (c Suspension) Concerns(doctorID, dept int64) bool {
	switch c.Scope {
	case ScopeClinic:
		return true
	case ScopeDepartment:
		return c.DepartmentID == dept
	}
	return c.DoctorID == doctorID
}
