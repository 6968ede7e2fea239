package booking

import (
	"testing"
	"time"
)

func TestDecideLeftovers(t *testing.T) {
	start := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	sl := Slot{ID: 7, Status: SlotOpen, StartAt: start, EndAt: start.Add(15 * time.Minute), Capacity: 4, BookedCount: 1}
	day := func(id, patient int64) WaitlistEntry {
		return WaitlistEntry{ID: id, PatientID: patient, SiteID: 3, State: EntryWaiting,
			From: start.Truncate(24 * time.Hour), To: start.Truncate(24 * time.Hour).Add(24 * time.Hour)}
	}
	rd := LeftoverReads{Slot: sl, Policy: DefaultPolicy, Standby: StandbyPolicy{SiteID: 3, Enabled: true, HoldMinutes: 10},
		Waiting: []WaitlistEntry{day(1, 10), day(2, 10), day(3, 11), day(4, 12), day(5, 13), day(6, 14)}, Busy: map[int64]bool{12: true},
		Taken: []int{1}}
	closed := start.Add(16 * time.Minute)

	got := DecideLeftovers(rd, closed)
	want := []int64{1, 3, 5} // FCFS, one per patient, the busy one passed over
	if len(got) != len(want) {
		t.Fatalf("offers = %+v, want entries %v", got, want)
	}
	for i, o := range got {
		if o.EntryID != want[i] || o.Queue != i+2 || !o.ExpiresAt.Equal(closed.Add(10*time.Minute)) {
			t.Errorf("offer %d = %+v", i, o)
		}
	}

	for name, c := range map[string]struct {
		rd  func(LeftoverReads) LeftoverReads
		now time.Time
		n   int
	}{
		"window still open":  {func(r LeftoverReads) LeftoverReads { return r }, start.Add(15 * time.Minute), 0},
		"next day":           {func(r LeftoverReads) LeftoverReads { return r }, start.Add(9 * time.Hour), 0},
		"policy off":         {func(r LeftoverReads) LeftoverReads { r.Standby.Enabled = false; return r }, closed, 0},
		"full":               {func(r LeftoverReads) LeftoverReads { r.Slot.BookedCount = 4; return r }, closed, 0},
		"closed slot":        {func(r LeftoverReads) LeftoverReads { r.Slot.Status = SlotClosed; return r }, closed, 0},
		"a round's":          {func(r LeftoverReads) LeftoverReads { r.Slot.RoundID = 2; return r }, closed, 0},
		"at once 2, 1 out":   {func(r LeftoverReads) LeftoverReads { r.Standby.AtOnce = 2; r.Out = 1; return r }, closed, 1},
		"at once 2, 2 out":   {func(r LeftoverReads) LeftoverReads { r.Standby.AtOnce = 2; r.Out = 2; return r }, closed, 0},
		"other site":         {func(r LeftoverReads) LeftoverReads { r.Standby.SiteID = 4; return r }, closed, 0},
		"one place left":     {func(r LeftoverReads) LeftoverReads { r.Slot.BookedCount = 3; return r }, closed, 1},
		"over capacity":      {func(r LeftoverReads) LeftoverReads { r.Slot.BookedCount = 5; return r }, closed, 0},
		"late: hold clipped": {func(r LeftoverReads) LeftoverReads { return r }, time.Date(2026, 3, 2, 23, 55, 0, 0, time.UTC), 3},
	} {
		got := DecideLeftovers(c.rd(rd), c.now)
		if len(got) != c.n {
			t.Errorf("%s: %d offers, want %d", name, len(got), c.n)
		}
		for _, o := range got {
			if o.ExpiresAt.After(time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("%s: offer held past the day: %v", name, o.ExpiresAt)
			}
		}
	}
}

func TestCheckStandby(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	ok := WaitlistEntry{SiteID: 1, From: now, To: now.Add(24 * time.Hour)}
	if err := CheckStandby(&ok, now); err != nil || ok.PartOfDay != PartAny || ok.Fingerprint == "" {
		t.Fatalf("CheckStandby = %v, %+v", err, ok)
	}
	for name, e := range map[string]WaitlistEntry{
		"no site":   {From: now, To: now.Add(time.Hour)},
		"a doctor":  {SiteID: 1, DoctorID: 2, From: now, To: now.Add(time.Hour)},
		"backwards": {SiteID: 1, From: now, To: now.Add(-time.Hour)},
		"over":      {SiteID: 1, From: now.Add(-2 * time.Hour), To: now.Add(-time.Hour)},
		"too long":  {SiteID: 1, From: now, To: now.Add((MaxStandbyDays*24 + 1) * time.Hour)},
	} {
		if err := CheckStandby(&e, now); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, p := range []StandbyPolicy{{HoldMinutes: 0}, {HoldMinutes: MaxLeftoverHoldMinutes + 1}, {HoldMinutes: 10, AtOnce: -1}} {
		if p.Validate() == nil {
			t.Errorf("%+v valid", p)
		}
	}
	if EntryMatches(WaitlistEntry{SiteID: 1, From: now, To: now.Add(time.Hour), PartOfDay: PartAny}, Slot{StartAt: now}, Doctor{}) {
		t.Error("a standby matches a released place")
	}
}
