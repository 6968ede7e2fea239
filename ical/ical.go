// Package ical publishes appointments as iCalendar (RFC 5545): a patient's
// private subscription feed, a doctor's days for staff and the .ics of one
// appointment. It is an adapter: it reads through booking and writes
// nothing but the patient's subscription token.
//
// Every event is an appointment: its UID is stable (appointment-<id>@<domain>),
// its times carry the TZID of the doctor's zone, described by a VTIMEZONE
// built from Go's zone database, and its SEQUENCE counts the state changes
// the appointment went through, so a cancellation reaches a subscribed
// calendar as the same event with a higher SEQUENCE and STATUS:CANCELLED.
package ical

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// Event is one appointment as the calendar shows it.
type Event struct {
	Appointment booking.Appointment
	// Zone is the doctor's zone; the event's times are given in it.
	Zone *time.Location
	// Summary and Description are plain text (escaped when written).
	Summary     string
	Description string
	Location    string
	// URL links to the appointment's page, when known.
	URL string
}

// Calendar is what one .ics document holds.
type Calendar struct {
	Name string
	// Domain makes the UIDs globally unique and must not change.
	Domain string
	Events []Event
	// Refresh suggests how often a subscriber polls (0: not said).
	Refresh time.Duration
}

// UID is the event's identity, the same in every feed and every version.
func UID(appointmentID int64, domain string) string {
	return "appointment-" + strconv.FormatInt(appointmentID, 10) + "@" + domain
}

// Sequence is the number of state changes an appointment went through,
// derived from its state: the state machine has no cycles, so this grows
// with every change. A paid appointment was HELD before it was BOOKED; a
// final state after BOOKED counts two, as it may have come through
// ARRIVED (a skipped number is no harm: it only has to grow).
func Sequence(a booking.Appointment) int {
	base := 0
	if a.HoldExpiresAt != nil {
		base = 1
	}
	switch a.Status {
	case booking.StatusHeld:
		return 0
	case booking.StatusBooked:
		return base
	case booking.StatusArrived:
		return base + 1
	case booking.StatusExpired:
		return 1
	default: // CANCELLED, COMPLETED, NO_SHOW
		return base + 2
	}
}

// status is the event's STATUS: a held appointment is tentative until paid;
// cancelled and expired ones are cancelled.
func status(s booking.Status) string {
	switch s {
	case booking.StatusHeld:
		return "TENTATIVE"
	case booking.StatusCancelled, booking.StatusExpired:
		return "CANCELLED"
	}
	return "CONFIRMED"
}

// Write renders c as an iCalendar document.
func Write(w io.Writer, c Calendar) error {
	e := &encoder{w: w}
	e.line("BEGIN:VCALENDAR")
	e.line("VERSION:2.0")
	e.line("PRODID:-//slotd//slotd//EN")
	e.line("CALSCALE:GREGORIAN")
	e.line("METHOD:PUBLISH")
	if c.Name != "" {
		e.line("NAME:" + text(c.Name))
		e.line("X-WR-CALNAME:" + text(c.Name))
	}
	if c.Refresh > 0 {
		e.line("REFRESH-INTERVAL;VALUE=DURATION:" + duration(c.Refresh))
		e.line("X-PUBLISHED-TTL:" + duration(c.Refresh))
	}
	for _, z := range zonesOf(c.Events) {
		writeTimezone(e, z.loc, z.from, z.to)
	}
	for _, ev := range c.Events {
		writeEvent(e, ev, c.Domain)
	}
	e.line("END:VCALENDAR")
	return e.err
}

func writeEvent(e *encoder, ev Event, domain string) {
	a := ev.Appointment
	e.line("BEGIN:VEVENT")
	e.line("UID:" + UID(a.ID, domain))
	e.line("DTSTAMP:" + utc(a.UpdatedAt))
	e.line("CREATED:" + utc(a.CreatedAt))
	e.line("LAST-MODIFIED:" + utc(a.UpdatedAt))
	e.line("SEQUENCE:" + strconv.Itoa(Sequence(a)))
	e.line("DTSTART;TZID=" + ev.Zone.String() + ":" + local(a.StartAt.In(ev.Zone)))
	e.line("DTEND;TZID=" + ev.Zone.String() + ":" + local(a.EndAt.In(ev.Zone)))
	e.line("SUMMARY:" + text(ev.Summary))
	if ev.Description != "" {
		e.line("DESCRIPTION:" + text(ev.Description))
	}
	if ev.Location != "" {
		e.line("LOCATION:" + text(ev.Location))
	}
	if ev.URL != "" {
		e.line("URL:" + ev.URL)
	}
	e.line("STATUS:" + status(a.Status))
	e.line("TRANSP:OPAQUE")
	e.line("END:VEVENT")
}

// zoneRange is one zone and the period its events span.
type zoneRange struct {
	loc      *time.Location
	from, to time.Time
}

// zonesOf lists the zones of the events, by name, each with the span of
// its events, so that each gets one VTIMEZONE covering them.
func zonesOf(evs []Event) []zoneRange {
	byName := map[string]*zoneRange{}
	for _, ev := range evs {
		z := byName[ev.Zone.String()]
		if z == nil {
			z = &zoneRange{loc: ev.Zone, from: ev.Appointment.StartAt, to: ev.Appointment.EndAt}
			byName[ev.Zone.String()] = z
		}
		if ev.Appointment.StartAt.Before(z.from) {
			z.from = ev.Appointment.StartAt
		}
		if ev.Appointment.EndAt.After(z.to) {
			z.to = ev.Appointment.EndAt
		}
	}
	out := make([]zoneRange, 0, len(byName))
	for _, z := range byName {
		out = append(out, *z)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].loc.String() < out[j].loc.String() })
	return out
}

// writeTimezone describes loc over whole years around [from, to] as one
// observance per offset change, taken from Go's zone database with
// ZoneBounds: explicit DTSTARTs rather than RRULEs, so that the
// description is exactly what Go knows, past rule changes included.
func writeTimezone(e *encoder, loc *time.Location, from, to time.Time) {
	start := time.Date(from.In(loc).Year(), 1, 1, 0, 0, 0, 0, loc)
	end := time.Date(to.In(loc).Year()+1, 1, 1, 0, 0, 0, 0, loc)
	e.line("BEGIN:VTIMEZONE")
	e.line("TZID:" + loc.String())
	// The observance in effect at the start, from its own beginning.
	zs, next := start.ZoneBounds()
	if zs.IsZero() {
		name, off := start.Zone()
		observance(e, start.IsDST(), time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), off, off, name)
	} else {
		_, before := zs.Add(-time.Second).Zone()
		name, off := zs.Zone()
		observance(e, zs.IsDST(), zs.In(time.FixedZone("", before)), before, off, name)
	}
	for !next.IsZero() && next.Before(end) {
		_, before := next.Add(-time.Second).Zone()
		name, off := next.Zone()
		observance(e, next.IsDST(), next.In(time.FixedZone("", before)), before, off, name)
		_, next = next.ZoneBounds()
	}
	e.line("END:VTIMEZONE")
}

// observance writes one STANDARD or DAYLIGHT: DTSTART is the local time of
// the change read on the clock before it (RFC 5545 §3.6.5).
func observance(e *encoder, dst bool, onset time.Time, from, to int, name string) {
	kind := "STANDARD"
	if dst {
		kind = "DAYLIGHT"
	}
	e.line("BEGIN:" + kind)
	e.line("DTSTART:" + local(onset))
	e.line("TZOFFSETFROM:" + offset(from))
	e.line("TZOFFSETTO:" + offset(to))
	if name != "" {
		e.line("TZNAME:" + text(name))
	}
	e.line("END:" + kind)
}

func utc(t time.Time) string   { return t.UTC().Format("20060102T150405Z") }
func local(t time.Time) string { return t.Format("20060102T150405") }

// offset formats a UTC offset in seconds as ±hhmm[ss].
func offset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	s := fmt.Sprintf("%s%02d%02d", sign, sec/3600, sec/60%60)
	if sec%60 != 0 {
		s += fmt.Sprintf("%02d", sec%60)
	}
	return s
}

// duration formats d as an RFC 5545 duration in whole minutes.
func duration(d time.Duration) string { return fmt.Sprintf("PT%dM", int(d.Minutes())) }

// text escapes a TEXT value (RFC 5545 §3.3.11).
func text(s string) string {
	r := strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)
	return r.Replace(s)
}

// encoder writes content lines with CRLF, folded at 75 octets without
// splitting a UTF-8 sequence (RFC 5545 §3.1).
type encoder struct {
	w   io.Writer
	err error
}

func (e *encoder) line(s string) {
	if e.err != nil {
		return
	}
	var b strings.Builder
	width := 0
	for _, r := range s {
		n := len(string(r))
		if width+n > 75 {
			b.WriteString("\r\n ")
			width = 1
		}
		b.WriteRune(r)
		width += n
	}
	b.WriteString("\r\n")
	_, e.err = io.WriteString(e.w, b.String())
}
