package booking

import (
	"testing"
	"time"
)

func TestSlotOverlapAndPolicyRefusal(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 3, 5, h, m, 0, 0, time.UTC) }
	sl := func(id int64, h, m, minutes int) Slot {
		return Slot{ID: id, StartAt: at(h, m), EndAt: at(h, m).Add(time.Duration(minutes) * time.Minute)}
	}
	existing := []Slot{sl(2, 11, 0, 45), sl(1, 9, 0, 30)}
	for name, tc := range map[string]struct {
		planned Slot
		want    Code
	}{
		"the same slot again": {sl(0, 11, 0, 45), ""},
		"inside another":      {sl(0, 11, 30, 15), CodeSlotOverlap},
		"adjacent":            {sl(0, 11, 45, 15), ""},
		"before":              {sl(0, 8, 30, 30), ""},
		"across the start":    {sl(0, 8, 45, 30), CodeSlotOverlap},
	} {
		if got := ErrorCode(SlotOverlap([]Slot{tc.planned}, existing)); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}

	now := at(8, 0)
	p := DefaultPolicy.With(PolicyOverride{NoShowLimit: ptr(2), NoShowBlockDays: ptr(30)})
	for name, tc := range map[string]struct {
		load         PatientLoad
		staff, freed bool
		want         Code
	}{
		"nothing held":          {PatientLoad{}, false, false, ""},
		"the day is full":       {PatientLoad{Active: 3, SameDay: 3}, false, false, CodeLimitReached},
		"its own stale hold":    {PatientLoad{Active: 3, SameDay: 3}, false, true, ""},
		"all places used":       {PatientLoad{Active: 10}, true, false, CodeLimitReached},
		"no-shows":              {PatientLoad{NoShows: 2, LastNoShow: now.Add(-24 * time.Hour)}, false, false, CodeBookingBlocked},
		"no-shows, staff books": {PatientLoad{NoShows: 2, LastNoShow: now.Add(-24 * time.Hour)}, true, false, ""},
		"the block is over":     {PatientLoad{NoShows: 2, LastNoShow: now.Add(-31 * 24 * time.Hour)}, false, false, ""},
	} {
		var got Code
		if e := PolicyRefusal(PolicyCheck{Policy: p, Load: tc.load, Staff: tc.staff, Freed: tc.freed, SlotID: 1}, now); e != nil {
			got = e.Code
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}

func ptr(n int) *int { return &n }
