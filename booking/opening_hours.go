package booking

import (
	"slices"
	"strings"
	"time"
)

// A site's opening hours: a week of periods in the site's own time zone,
// shown to patients (GET /api/sites, FHIR Location.hoursOfOperation).
// They are the doors' hours, not a rule on the doctors' schedules: a
// vaccination evening or an on-call doctor may work outside them, and
// changing the hours must not make existing schedules or bookings wrong.

// MaxOpeningPeriodsPerDay bounds the periods of one weekday (a morning,
// an afternoon, an evening).
const MaxOpeningPeriodsPerDay = 3

// weekdays are the days of OpeningPeriod.Day, Monday first as a week is
// shown.
var weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// OpeningPeriod is one period a site is open on a weekday: from Opens to
// Closes, "HH:MM" of the site's zone ("24:00" closes at midnight).
type OpeningPeriod struct {
	Day    string `json:"day"`
	Opens  string `json:"opens"`
	Closes string `json:"closes"`
}

// OpeningHours is a site's week; empty when not given.
type OpeningHours []OpeningPeriod

// minuteOfDay reads "HH:MM", 00:00 to 24:00.
func minuteOfDay(s string) (int, bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, false
	}
	t, err := time.Parse("15:04", s)
	if err == nil {
		return t.Hour()*60 + t.Minute(), true
	}
	return 24 * 60, s == "24:00"
}

// Normalize checks the week and returns it sorted by day then opening
// time: known days, opening before closing, periods of a day not
// overlapping and at most MaxOpeningPeriodsPerDay of them.
func (h OpeningHours) Normalize() (OpeningHours, error) {
	if len(h) > len(weekdays)*MaxOpeningPeriodsPerDay {
		return nil, Errorf(CodeInvalidRequest, "openingHours has at most %d periods", len(weekdays)*MaxOpeningPeriodsPerDay)
	}
	out := make(OpeningHours, 0, len(h))
	for _, p := range h {
		p.Day = strings.ToLower(strings.TrimSpace(p.Day))
		o, okO := minuteOfDay(p.Opens)
		c, okC := minuteOfDay(p.Closes)
		switch {
		case !slices.Contains(weekdays, p.Day):
			return nil, Errorf(CodeInvalidRequest, "openingHours day must be one of %s", strings.Join(weekdays, ", "))
		case !okO || !okC || o >= c:
			return nil, Errorf(CodeInvalidRequest, "openingHours opens and closes must be HH:MM, opening before closing")
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b OpeningPeriod) int {
		if d := slices.Index(weekdays, a.Day) - slices.Index(weekdays, b.Day); d != 0 {
			return d
		}
		return strings.Compare(a.Opens, b.Opens)
	})
	perDay := 0
	for i, p := range out {
		perDay++
		if i == 0 || out[i-1].Day != p.Day {
			perDay = 1
		} else if out[i-1].Closes > p.Opens {
			return nil, Errorf(CodeInvalidRequest, "openingHours periods of %s overlap", p.Day)
		}
		if perDay > MaxOpeningPeriodsPerDay {
			return nil, Errorf(CodeInvalidRequest, "openingHours has at most %d periods a day", MaxOpeningPeriodsPerDay)
		}
	}
	return out, nil
}
