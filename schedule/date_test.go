package schedule

import (
	"errors"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func TestParseDate(t *testing.T) {
	good := []struct {
		in   string
		want Date
	}{
		{"2026-03-29", Date{2026, time.March, 29}},
		{"2024-02-29", Date{2024, time.February, 29}},
		{"0001-01-01", Date{1, time.January, 1}},
		{"9999-12-31", Date{9999, time.December, 31}},
	}
	for _, tc := range good {
		got, err := ParseDate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if got.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
	bad := []string{
		"", "2026-3-29", "2026-03-9", "26-03-29", "2026/03/29", "2026-03-29 ", " 2026-03-29",
		"2026-03-29T00:00:00Z", "2026-13-01", "2026-00-10", "2026-02-29", "2026-04-31", "2026-03-00",
		"0000-01-01", "+026-03-29", "2026-0a-29", "２026-03-29",
	}
	for _, in := range bad {
		_, err := ParseDate(in)
		var be *booking.Error
		if !errors.As(err, &be) || be.Code != booking.CodeInvalidRequest {
			t.Errorf("ParseDate(%q) error = %v, want invalid-request", in, err)
		}
	}
}

func TestDateArithmetic(t *testing.T) {
	d := Date{2026, time.March, 29}
	cases := []struct {
		n    int
		want Date
	}{
		{0, d}, {1, Date{2026, time.March, 30}}, {3, Date{2026, time.April, 1}},
		{-14, Date{2026, time.March, 15}}, {-29, Date{2026, time.February, 28}},
		{366, Date{2027, time.March, 30}}, {-365 - 366, Date{2024, time.March, 28}},
	}
	for _, tc := range cases {
		if got := d.AddDays(tc.n); got != tc.want {
			t.Errorf("%v.AddDays(%d) = %v, want %v", d, tc.n, got, tc.want)
		}
	}
	if d.Weekday() != time.Sunday {
		t.Errorf("2026-03-29 weekday = %v, want Sunday", d.Weekday())
	}
	if !d.Before(d.AddDays(1)) || d.AddDays(1).Before(d) || d.Before(d) {
		t.Error("Before is not a strict order on consecutive days")
	}
	if !(Date{2025, time.December, 31}).Before(Date{2026, time.January, 1}) || !(Date{2026, time.January, 31}).Before(Date{2026, time.February, 1}) {
		t.Error("Before across month/year boundaries")
	}
}

func TestDateOfAndDayBounds(t *testing.T) {
	paris := mustLoc(t, "Europe/Paris")
	ny := mustLoc(t, "America/New_York")
	lh := mustLoc(t, "Australia/Lord_Howe")
	santiago := mustLoc(t, "America/Santiago")
	cases := []struct {
		name       string
		loc        *time.Location
		day        string
		start, end string // UTC
	}{
		{"paris ordinary", paris, "2026-03-10", "2026-03-09T23:00:00Z", "2026-03-10T23:00:00Z"},
		{"paris spring 23h", paris, "2026-03-29", "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z"},
		{"paris fall 25h", paris, "2026-10-25", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z"},
		{"new york spring 23h", ny, "2026-03-08", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"},
		{"new york fall 25h", ny, "2026-11-01", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"},
		{"lord howe fall 24.5h", lh, "2026-04-05", "2026-04-04T13:00:00Z", "2026-04-05T13:30:00Z"},
		{"lord howe spring 23.5h", lh, "2026-10-04", "2026-10-03T13:30:00Z", "2026-10-04T13:00:00Z"},
		// Chile falls back at midnight: at Saturday 24:00 -03 the clock goes
		// back to Saturday 23:00 -04, so Saturday has 25 hours and Sunday's
		// 00:00 exists only once, at -04.
		{"santiago saturday 25h", santiago, "2026-04-04", "2026-04-04T03:00:00Z", "2026-04-05T04:00:00Z"},
		{"santiago sunday after", santiago, "2026-04-05", "2026-04-05T04:00:00Z", "2026-04-06T04:00:00Z"},
		// Chile springs forward at midnight: Sunday 00:00 does not exist,
		// the day begins at 01:00 -03.
		{"santiago midnight gap", santiago, "2026-09-06", "2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z"},
		{"utc", time.UTC, "2026-03-29", "2026-03-29T00:00:00Z", "2026-03-30T00:00:00Z"},
		{"nil is utc", nil, "2026-03-29", "2026-03-29T00:00:00Z", "2026-03-30T00:00:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDate(t, tc.day)
			s, e := DayBounds(d, tc.loc)
			if !s.Equal(mustTime(t, tc.start)) || !e.Equal(mustTime(t, tc.end)) {
				t.Fatalf("DayBounds = [%s, %s), want [%s, %s)", s.Format(time.RFC3339), e.Format(time.RFC3339), tc.start, tc.end)
			}
			if s.Location() != time.UTC || e.Location() != time.UTC {
				t.Error("bounds are not in UTC")
			}
			if got := DateOf(s, tc.loc); got != d {
				t.Errorf("DateOf(start) = %v, want %v", got, d)
			}
			if got := DateOf(e, tc.loc); got != d.AddDays(1) {
				t.Errorf("DateOf(end) = %v, want %v", got, d.AddDays(1))
			}
		})
	}
}

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

func mustDate(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
