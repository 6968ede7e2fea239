package fhir

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// ignoredParams are result-shaping parameters a client may send that do
// not change which resources match; anything else unknown is refused, so a
// misspelt filter is never silently ignored.
// _count and _cursor shape the page (pagerOf).
var ignoredParams = map[string]bool{"_format": true, "_pretty": true, "_count": true, "_cursor": true, "_summary": true}

// checkParams refuses parameters outside allowed.
func checkParams(q url.Values, allowed ...string) error {
	for k := range q {
		if ignoredParams[k] {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			return booking.Errorf(booking.CodeInvalidRequest, "unknown search parameter %q", k)
		}
	}
	return nil
}

// period is a half-open range [From, To) of instants; zero ends are open.
type period struct{ From, To time.Time }

// dateRange reads FHIR date search values (prefixes eq, ge, gt, le, lt;
// precision year, month, day or a dateTime with zone), ANDed together into
// one period. Dates without a time are days in loc.
func dateRange(values []string, loc *time.Location) (period, error) {
	var p period
	for _, v := range values {
		prefix := "eq"
		if len(v) > 2 && v[0] >= 'a' && v[0] <= 'z' {
			prefix, v = v[:2], v[2:]
		}
		lo, hi, err := dateValue(v, loc)
		if err != nil {
			return p, err
		}
		switch prefix {
		case "eq":
			p.raise(lo)
			p.lower(hi)
		case "ge":
			p.raise(lo)
		case "gt":
			p.raise(hi)
		case "lt":
			p.lower(lo)
		case "le":
			p.lower(hi)
		default:
			return p, booking.Errorf(booking.CodeInvalidRequest, "date prefix %q is not supported (eq, ge, gt, le, lt)", prefix)
		}
	}
	return p, nil
}

func (p *period) raise(t time.Time) {
	if p.From.IsZero() || t.After(p.From) {
		p.From = t
	}
}

func (p *period) lower(t time.Time) {
	if p.To.IsZero() || t.Before(p.To) {
		p.To = t
	}
}

// dateValue is the range a date value stands for: a whole year, month or
// day, or one second.
func dateValue(v string, loc *time.Location) (lo, hi time.Time, err error) {
	for _, f := range []struct {
		layout string
		next   func(time.Time) time.Time
	}{
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
		{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{time.DateOnly, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
	} {
		if len(v) == len(f.layout) {
			t, err := time.ParseInLocation(f.layout, v, loc)
			if err == nil {
				return t, f.next(t), nil
			}
		}
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return lo, hi, booking.Errorf(booking.CodeInvalidRequest, "%q is not a FHIR date (YYYY, YYYY-MM, YYYY-MM-DD or a dateTime with zone)", v)
	}
	return t, t.Add(time.Second), nil
}

// bounded closes an open period: from defaults to now, to to from plus
// DefaultSearchDays, and it may span at most MaxSearchDays.
func (p period) bounded(now time.Time) (period, error) {
	if p.From.IsZero() {
		p.From = now
		if !p.To.IsZero() && p.To.Before(p.From) {
			p.From = p.To.AddDate(0, 0, -DefaultSearchDays)
		}
	}
	if p.To.IsZero() {
		p.To = p.From.AddDate(0, 0, DefaultSearchDays)
	}
	if p.To.Sub(p.From) > MaxSearchDays*24*time.Hour {
		return p, booking.Errorf(booking.CodeInvalidRequest, "a search may span at most %d days", MaxSearchDays)
	}
	return p, nil
}

// refID reads a reference parameter "Kind/123" or "123" as an id.
func refID(v, kind string) (int64, error) {
	v = strings.TrimPrefix(v, kind+"/")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, booking.Errorf(booking.CodeInvalidRequest, "%q is not a %s reference (%s/<id>)", v, kind, kind)
	}
	return n, nil
}

// pathID reads the {id} of a read; a malformed one is simply not found,
// as FHIR ids are opaque.
func pathID(v, kind string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, booking.NotFound(strings.ToLower(kind))
	}
	return n, nil
}

// tokens splits a comma-separated token parameter (OR), across repeats
// of the parameter, dropping repeated values; more than MaxListValues
// distinct values are refused, so one short request cannot fan out into
// unbounded reads.
func tokens(q url.Values, name string) ([]string, error) {
	var out []string
	for _, v := range q[name] {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(out, t) {
				if len(out) == MaxListValues {
					return nil, booking.Errorf(booking.CodeInvalidRequest, "%s takes at most %d values", name, MaxListValues)
				}
				out = append(out, t)
			}
		}
	}
	return out, nil
}

// refIDs reads a reference list as distinct ids ("Kind/3" and "3" are one).
func refIDs(q url.Values, name, kind string) ([]int64, error) {
	refs, err := tokens(q, name)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, ref := range refs {
		n, err := refID(ref, kind)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ids, n) {
			ids = append(ids, n)
		}
	}
	return ids, nil
}
