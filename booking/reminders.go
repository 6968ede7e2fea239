package booking

import (
	"slices"
	"strings"
	"time"
)

// Reminders: messages before each BOOKED appointment at offsets (default
// 24 h and 2 h, a schedule's own when it has them). A periodic scan
// (Service.SendReminders) records each offset of each appointment once, in
// the transaction that enqueues its message, so a restart or a second
// process sends none twice; the worker drops a reminder whose appointment
// is no longer BOOKED or has started.

// DefaultReminders are the offsets used when neither the server nor the
// schedule says otherwise.
var DefaultReminders = []time.Duration{24 * time.Hour, 2 * time.Hour}

// MaxReminderOffset bounds an offset.
const MaxReminderOffset = 14 * 24 * time.Hour

// ParseReminders parses "24h,2h" (Go durations of whole minutes, 1 minute
// to 14 days, at most 5). The empty string is no offsets.
func ParseReminders(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < time.Minute || d > MaxReminderOffset || d%time.Minute != 0 {
			return nil, Errorf(CodeInvalidRequest, "reminders: %q is not a duration of whole minutes from 1m to 336h", f)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(out) > 5 {
		return nil, Errorf(CodeInvalidRequest, "reminders: at most 5 offsets")
	}
	return out, nil
}

// ReminderCandidate is a BOOKED appointment the scan found starting within
// the largest offset: its start, its schedule's own offsets ("" for the
// server's) and the offsets (minutes) already recorded.
type ReminderCandidate struct {
	AppointmentID int64
	StartAt       time.Time
	Schedule      string
	Done          []int
}

// ReminderDecision is what the scan records for one appointment: Send is
// the offset (minutes) whose message is enqueued now, 0 for none; Passed
// are earlier offsets recorded without a message (a scan that first sees
// an appointment 1 h before its start, after a booking that late or an
// outage, sends the 2 h reminder and never a stale 24 h one).
type ReminderDecision struct {
	Send   int
	Passed []int
}

// DecideReminder decides c at now with the server's offsets: of the
// offsets whose time has come (start - offset <= now < start) and that are
// not recorded, the closest to the start is sent and the others passed.
func DecideReminder(c ReminderCandidate, defaults []time.Duration, now time.Time) ReminderDecision {
	offsets := defaults
	if c.Schedule != "" {
		if own, err := ParseReminders(c.Schedule); err == nil {
			offsets = own
		}
	}
	var d ReminderDecision
	if !now.Before(c.StartAt) {
		return d
	}
	var due []int
	for _, o := range offsets {
		m := int(o / time.Minute)
		if !c.StartAt.Add(-o).After(now) && !slices.Contains(c.Done, m) {
			due = append(due, m)
		}
	}
	if len(due) == 0 {
		return d
	}
	slices.Sort(due)
	d.Send, d.Passed = due[0], due[1:]
	return d
}

// ReminderWindow is how far ahead the scan looks: the largest offset.
func ReminderWindow(defaults []time.Duration, schedules []string) time.Duration {
	w := time.Duration(0)
	for _, o := range defaults {
		w = max(w, o)
	}
	for _, s := range schedules {
		own, _ := ParseReminders(s)
		for _, o := range own {
			w = max(w, o)
		}
	}
	return w
}

// ReminderScanLimit bounds the appointments one scan looks at.
const ReminderScanLimit = 5000

// ReminderScan is what one scan did: Sent messages enqueued, Passed
// offsets recorded without a message (their time had gone by).
type ReminderScan struct {
	Sent, Passed int
}

// CheckScheduleWaitlist validates a schedule's own reminders and offer time.
func CheckScheduleWaitlist(sc Schedule) error {
	if _, err := ParseReminders(sc.Reminders); err != nil {
		return err
	}
	if sc.OfferMinutes < 0 || sc.OfferMinutes > 1440 {
		return Errorf(CodeInvalidRequest, "offerMinutes must be 1 to 1440 (0: %d)", DefaultOfferMinutes)
	}
	return nil
}
