package schedule

import (
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
)

// Date is a calendar day, without zone. Schedules speak in local days ("every
// Monday"), and a day is only turned into instants together with the
// resource's zone, by DayBounds, so a Date never carries a zone or a clock
// that could silently shift it across midnight.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// ParseDate parses "YYYY-MM-DD" strictly: exactly four-digit year, two-digit
// month and day, a day that exists in that month. Anything else is a
// *booking.Error with CodeInvalidRequest, because dates come from clients
// (?date=, generate {from,to}) and a lenient parse would answer for a day the
// client did not ask about.
func ParseDate(s string) (Date, error) {
	bad := func() (Date, error) {
		return Date{}, booking.Errorf(booking.CodeInvalidRequest, "invalid date %q: want YYYY-MM-DD", s)
	}
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return bad()
	}
	num := func(part string) (int, bool) {
		n := 0
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(s[0:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:10])
	if !ok1 || !ok2 || !ok3 || y < 1 || m < 1 || m > 12 || d < 1 {
		return bad()
	}
	// time.Date normalises 2026-02-30 to March 2; a round trip that changes
	// the day means the day does not exist.
	if dateOfUTC(time.Date(y, time.Month(m), d, 12, 0, 0, 0, time.UTC)) != (Date{y, time.Month(m), d}) {
		return bad()
	}
	return Date{y, time.Month(m), d}, nil
}

// String formats d as "YYYY-MM-DD", the form ParseDate accepts, so dates
// round-trip through URLs and JSON unchanged.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// AddDays returns the day n calendar days after d (before it for negative
// n). It counts calendar days, not 24-hour periods, which is what a booking
// horizon means on a 23- or 25-hour DST day.
func (d Date) AddDays(n int) Date {
	return dateOfUTC(d.noonUTC().AddDate(0, 0, n))
}

// Midnight is d as a UTC midnight: how the service passes a civil
// date without a zone of its own.
func (d Date) Midnight() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// Before reports whether d is an earlier day than o.
func (d Date) Before(o Date) bool {
	if d.Year != o.Year {
		return d.Year < o.Year
	}
	if d.Month != o.Month {
		return d.Month < o.Month
	}
	return d.Day < o.Day
}

// Weekday is the day of the week of d. It does not depend on any zone: a
// calendar day is the same weekday everywhere.
func (d Date) Weekday() time.Weekday { return d.noonUTC().Weekday() }

// DateOf returns the local day, in loc, of the instant t: the day whose
// slots t would be listed under. A nil loc means UTC.
func DateOf(t time.Time, loc *time.Location) Date {
	return dateOf(t.In(orUTC(loc)))
}

// noonUTC is d as a UTC instant at noon, a zone-free anchor for calendar
// arithmetic (noon keeps any normalisation far from midnight).
func (d Date) noonUTC() time.Time { return time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC) }

// dateOf is the calendar day of t in t's own location.
func dateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

func dateOfUTC(t time.Time) Date { return dateOf(t.UTC()) }

// orUTC treats a nil location as UTC instead of panicking, as time.Date would.
func orUTC(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}
