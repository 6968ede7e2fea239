package booking

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestDecideWalkIn(t *testing.T) {
	start := time.Date(2026, 6, 2, 8, 0, 0, 0, time.UTC) // 10:00 in Paris
	full := Slot{ID: 7, DoctorID: 3, StartAt: start, EndAt: start.Add(30 * time.Minute), Capacity: 2, BookedCount: 2, Status: SlotOpen}
	rd := func(edit func(*WalkInReads)) WalkInReads {
		r := WalkInReads{Slot: full, Doctor: Doctor{TimeZone: "Europe/Paris"}, Policy: Policy{WalkInsPerSlot: 2},
			Patient: &Patient{ID: 9, Active: true}, Taken: []int{1, 2}}
		if edit != nil {
			edit(&r)
		}
		return r
	}
	req := WalkInRequest{SlotID: 7, PatientID: 9, Reason: "fever", Key: "k"}
	at := start.Add(-2 * time.Hour)

	d, err := DecideWalkIn(req, rd(nil), at)
	if err != nil || d.Replay || !d.Appointment.WalkIn || d.Appointment.QueueNumber != 3 || d.Allowance != 1 ||
		d.Appointment.Status != StatusBooked || d.Appointment.WalkInReason != "fever" {
		t.Fatalf("a walk-in on a full slot: %+v %v", d, err)
	}
	// A second walk-in: the allowance grows with the places above capacity.
	d, err = DecideWalkIn(req, rd(func(r *WalkInReads) { r.Slot.BookedCount, r.Allowance, r.WalkIns, r.Taken = 3, 1, 1, []int{1, 2, 3} }), at)
	if err != nil || d.Allowance != 2 || d.Appointment.QueueNumber != 4 {
		t.Fatalf("a second walk-in: %+v %v", d, err)
	}
	// After cancels, the number after the last (not a cancelled one ahead
	// of those who booked) and the allowance kept.
	d, err = DecideWalkIn(req, rd(func(r *WalkInReads) { r.Allowance, r.WalkIns, r.Taken = 2, 1, []int{2, 4} }), at)
	if err != nil || d.Allowance != 2 || d.Appointment.QueueNumber != 5 {
		t.Fatalf("a walk-in after cancels: %+v %v", d, err)
	}

	// The day is the doctor's: 22:30 UTC on the 1st is 00:30 on the 2nd in Paris.
	if _, err := DecideWalkIn(req, rd(nil), time.Date(2026, 6, 1, 22, 30, 0, 0, time.UTC)); err != nil {
		t.Fatalf("the slot's day in its doctor's zone: %v", err)
	}

	existing := Appointment{ID: 5, SlotID: 7, Fingerprint: req.Fingerprint(), WalkIn: true}
	if d, err := DecideWalkIn(req, rd(func(r *WalkInReads) { r.Existing = &existing; r.Slot.Status = SlotClosed }), at); err != nil || !d.Replay || d.Appointment.ID != 5 {
		t.Fatalf("a replay comes first: %+v %v", d, err)
	}
	other := existing
	other.Fingerprint = "slot=8"
	for name, c := range map[string]struct {
		edit func(*WalkInReads)
		at   time.Time
		code Code
	}{
		"key reused":         {func(r *WalkInReads) { r.Existing = &other }, at, CodeKeyReused},
		"round":              {func(r *WalkInReads) { r.Slot.RoundID = 4 }, at, CodeInvalidRequest},
		"closed":             {func(r *WalkInReads) { r.Slot.Status = SlotClosed }, at, CodeSlotClosed},
		"ended":              {nil, full.EndAt, CodeSlotClosed},
		"the day before":     {nil, start.Add(-24 * time.Hour), CodeWalkInNotToday},
		"Paris's day before": {nil, time.Date(2026, 6, 1, 21, 30, 0, 0, time.UTC), CodeWalkInNotToday}, // 23:30 on the 1st in Paris
		"not full":           {func(r *WalkInReads) { r.Slot.BookedCount = 1 }, at, CodeSlotNotFull},
		"used up":            {func(r *WalkInReads) { r.WalkIns = 2 }, at, CodeWalkInLimit},
		"off":                {func(r *WalkInReads) { r.Policy.WalkInsPerSlot = 0 }, at, CodeWalkInLimit},
		"no patient":         {func(r *WalkInReads) { r.Patient = nil }, at, CodeNotFound},
		"departed":           {func(r *WalkInReads) { r.Patient.Active = false }, at, CodeBookingBlocked},
		"already here":       {func(r *WalkInReads) { r.ActiveHere = true }, at, CodeAlreadyBooked},
		"overlapping":        {func(r *WalkInReads) { r.Overlapping = true }, at, CodeOverlapping},
	} {
		_, err := DecideWalkIn(req, rd(c.edit), c.at)
		if ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}

func TestCheckWalkInReason(t *testing.T) {
	if r, err := CheckWalkInReason("  fever \n"); err != nil || r != "fever" {
		t.Fatalf("trimmed: %q %v", r, err)
	}
	for _, bad := range []string{"", "  \t", strings.Repeat("é", MaxWalkInReason+1), "\xff"} {
		if _, err := CheckWalkInReason(bad); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := CheckWalkInReason(strings.Repeat("漢", MaxWalkInReason)); err != nil {
		t.Errorf("the longest reason, in characters: %v", err)
	}
}

func TestWalkInOutcome(t *testing.T) {
	for _, c := range []struct {
		replay bool
		err    error
		want   string
	}{
		{false, nil, WalkInAdded}, {true, nil, WalkInReplayed},
		{false, &Error{Code: CodeWalkInLimit}, "walk-in-limit"}, {false, &Error{Code: CodeSlotNotFull}, "slot-not-full"},
		{false, &Error{Code: CodeAlreadyBooked}, WalkInOther}, {false, errors.New("boom"), WalkInOther},
	} {
		if got := WalkInOutcome(c.replay, c.err); got != c.want {
			t.Errorf("%v %v: %s, want %s", c.replay, c.err, got, c.want)
		}
	}
}

// TestToReserveOverCapacity: places released in a slot that walk-ins keep
// at or above its capacity are not kept for the waitlist.
func TestToReserveOverCapacity(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	sl := Slot{ID: 1, DoctorID: 2, StartAt: now.Add(24 * time.Hour), EndAt: now.Add(25 * time.Hour), Capacity: 2, Status: SlotOpen}
	waiting := []WaitlistEntry{{State: EntryWaiting, DoctorID: 2, From: now, To: now.Add(48 * time.Hour), PartOfDay: PartAny},
		{State: EntryWaiting, DoctorID: 2, From: now, To: now.Add(48 * time.Hour), PartOfDay: PartAny}}
	for _, c := range []struct{ booked, released, want int }{{0, 2, 2}, {1, 1, 1}, {2, 1, 0}, {3, 1, 0}, {1, 2, 1}} {
		s := sl
		s.BookedCount = c.booked
		if got := ToReserve(ReserveReads{Slot: s, Doctor: Doctor{ID: 2, TimeZone: "UTC"}, Released: c.released, Waiting: waiting}, now); got != c.want {
			t.Errorf("booked %d after %d released: %d reserved, want %d", c.booked, c.released, got, c.want)
		}
	}
}

func TestRepairCounterWithinWalkIns(t *testing.T) {
	if _, ok := RepairCounter(1, 3, 2, 3); !ok {
		t.Error("a counter below its rows within capacity + walk-ins is repaired")
	}
	if _, ok := RepairCounter(1, 3, 2, 4); ok {
		t.Error("rows above capacity + walk-ins are reported, never repaired")
	}
}
