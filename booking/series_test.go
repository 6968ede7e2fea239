package booking

import (
	"strings"
	"testing"
	"time"
)

func TestDecideSeries(t *testing.T) {
	day := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	ds := &DoseSeries{ID: 7, Windows: []DoseWindow{{MinDays: 21, MaxDays: 28}, {MinDays: 60, MaxDays: 90}}}
	slots := map[int64]Slot{
		30: {ID: 30, StartAt: day},
		10: {ID: 10, StartAt: day.Add(21 * 24 * time.Hour)},              // day 21: the window's first day
		20: {ID: 20, StartAt: day.Add((21+90)*24*time.Hour + time.Hour)}, // day 90 after dose 2, late in it
		40: {ID: 40, StartAt: day.Add(29 * 24 * time.Hour)},              // a day past the window
		50: {ID: 50, StartAt: day.Add(22 * 24 * time.Hour), FeeCents: 100},
	}
	req := func(key string, ids ...int64) SeriesRequest {
		return SeriesRequest{PatientID: 1, SeriesID: 7, SlotIDs: ids, IdempotencyKey: key, Fingerprint: SeriesFingerprint(7, ids)}
	}
	p := DecideSeries(req("k", 30, 10, 20), SeriesReads{Series: ds, Slots: slots})
	if p.Err != nil || p.Replay != nil {
		t.Fatalf("plan %+v", p)
	}
	// Locked and decided in slot id order, each dose with its own key.
	if got := p.Doses; len(got) != 3 || got[0] != 2 || got[1] != 3 || got[2] != 1 {
		t.Fatalf("doses in order %v, want 2 3 1 (slots 10 20 30)", got)
	}
	for k, r := range p.Requests {
		if r.SlotID != []int64{10, 20, 30}[k] || r.IdempotencyKey != DoseKey("k", p.Doses[k]) || len(r.IdempotencyKey) > 64 || !strings.Contains(r.IdempotencyKey, " ") {
			t.Fatalf("request %d: %+v", k, r)
		}
	}
	for _, c := range []struct {
		name string
		r    SeriesRequest
		rd   SeriesReads
		code Code
		ptr  string
	}{
		{"no series", req("k", 30, 10, 20), SeriesReads{Slots: slots}, CodeNotFound, ""},
		{"no slot", req("k"), SeriesReads{Series: ds, Slots: slots}, CodeInvalidRequest, "/slotIds"},
		{"too many slots", req("k", 30, 10, 20, 40), SeriesReads{Series: ds, Slots: slots}, CodeInvalidRequest, "/slotIds"},
		{"missing slot", req("k", 30, 99, 20), SeriesReads{Series: ds, Slots: slots}, CodeNotFound, "/slotIds/1"},
		{"too late", req("k", 30, 40, 20), SeriesReads{Series: ds, Slots: slots}, CodeDoseOutsideWindow, "/slotIds/1"},
		{"before dose 1", req("k", 10, 30, 20), SeriesReads{Series: ds, Slots: slots}, CodeDoseOutsideWindow, "/slotIds/1"},
		{"paid", req("k", 30, 50, 20), SeriesReads{Series: ds, Slots: slots}, CodeInvalidRequest, "/slotIds/1"},
		{"key reused", req("k", 30, 10, 20), SeriesReads{Replay: &SeriesBooking{Fingerprint: "other"}}, CodeKeyReused, ""},
	} {
		p := DecideSeries(c.r, c.rd)
		e, _ := p.Err.(*Error)
		if e == nil || e.Code != c.code || e.Pointer != c.ptr {
			t.Errorf("%s: %v (pointer %q), want %s at %q", c.name, p.Err, pointerOf(p.Err), c.code, c.ptr)
		}
	}
	r := req("k", 30, 10, 20)
	replay := DecideSeries(r, SeriesReads{Replay: &SeriesBooking{ID: 3, Fingerprint: r.Fingerprint}})
	if replay.Replay == nil || !replay.Replay.Replayed || replay.Replay.Booking.ID != 3 {
		t.Fatalf("replay %+v", replay)
	}
}

func pointerOf(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Pointer
	}
	return ""
}

// Finish: any refused dose refuses the series, the first in dose order
// named; a replayed dose (its key taken outside the series) too.
func TestSeriesFinish(t *testing.T) {
	p := SeriesPlan{Doses: []int{2, 1}}
	r := SeriesRequest{SeriesID: 7, PatientID: 1}
	sb, err := p.Finish(r, []BookResult{{Appointment: Appointment{ID: 12}}, {Appointment: Appointment{ID: 11}}})
	if err != nil || sb.Appointments[0].ID != 11 || sb.Appointments[1].ID != 12 {
		t.Fatalf("booked %+v, %v", sb, err)
	}
	full := ConstraintError(ConSlotCapacity, 5)
	if _, err := p.Finish(r, []BookResult{{Err: full}, {Appointment: Appointment{ID: 11}}}); ErrorCode(err) != CodeSlotFull {
		t.Fatalf("dose 2 full: %v", err)
	}
	if _, err := p.Finish(r, []BookResult{{Appointment: Appointment{ID: 12}}, {Replayed: true}}); ErrorCode(err) != CodeKeyReused {
		t.Fatalf("a replayed dose: %v", err)
	}
}

func TestCheckDoseSeries(t *testing.T) {
	ok := DoseSeries{Name: "Two", Windows: []DoseWindow{{21, 28}}}
	if err := CheckDoseSeries(ok); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []DoseSeries{
		{Name: " ", Windows: ok.Windows},
		{Name: "One"},
		{Name: "Many", Windows: make([]DoseWindow, MaxDoses)},
		{Name: "Zero", Windows: []DoseWindow{{0, 3}}},
		{Name: "Inverted", Windows: []DoseWindow{{5, 3}}},
		{Name: "Long", Windows: []DoseWindow{{1, MaxDoseGapDays + 1}}},
	} {
		if ErrorCode(CheckDoseSeries(bad)) != CodeInvalidRequest {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestLaterDoses(t *testing.T) {
	byDose := map[int]Appointment{1: {ID: 1, Status: StatusCancelled}, 2: {ID: 2, Status: StatusBooked}, 3: {ID: 3, Status: StatusCompleted}, 4: {ID: 4, Status: StatusBooked}}
	got := LaterDoses(1, byDose)
	if len(got) != 2 || got[0].ID != 2 || got[1].ID != 4 {
		t.Fatalf("later doses %+v", got)
	}
	if len(LaterDoses(0, byDose)) != 0 || len(LaterDoses(4, byDose)) != 0 {
		t.Fatal("an appointment of no series, or the last dose, cancels another")
	}
}

func TestDecideNextDose(t *testing.T) {
	day := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	ds := &DoseSeries{ID: 7, Windows: []DoseWindow{{MinDays: 21, MaxDays: 28}, {MinDays: 60, MaxDays: 90}}}
	dose1 := Appointment{ID: 1, PatientID: 5, Status: StatusBooked, StartAt: day}
	b := &SeriesBooking{ID: 3, SeriesID: 7, PatientID: 5, Appointments: []Appointment{dose1}}
	slot := func(id int64, after time.Duration) *Slot { return &Slot{ID: id, StartAt: day.Add(after)} }
	r := NextDoseRequest{PatientID: 5, BookingID: 3, SlotID: 10, IdempotencyKey: "k", Fingerprint: NextDoseFingerprint(3, 10)}
	p := DecideNextDose(r, NextDoseReads{Booking: b, Series: ds, Slot: slot(10, 21*24*time.Hour)})
	if p.Err != nil || p.Replay || p.Dose != 2 || p.Request.SlotID != 10 || p.Request.IdempotencyKey != "k" || p.Request.Fingerprint != r.Fingerprint {
		t.Fatalf("plan %+v", p)
	}
	// Dose 3's window counts from dose 2's start, given or not yet.
	given := dose1
	given.Status = StatusCompleted
	dose2 := Appointment{ID: 2, PatientID: 5, Status: StatusCompleted, StartAt: day.Add(25 * 24 * time.Hour)}
	two := &SeriesBooking{ID: 3, SeriesID: 7, PatientID: 5, Appointments: []Appointment{given, dose2}}
	if p := DecideNextDose(r, NextDoseReads{Booking: two, Series: ds, Slot: slot(10, (25+90)*24*time.Hour)}); p.Err != nil || p.Dose != 3 {
		t.Fatalf("dose 3 at day 90 after dose 2: %+v", p)
	}
	cancelled := dose1
	cancelled.Status = StatusCancelled
	full := &SeriesBooking{ID: 3, SeriesID: 7, PatientID: 5, Appointments: []Appointment{dose1, dose2, dose2}}
	for _, c := range []struct {
		name string
		rd   NextDoseReads
		code Code
		ptr  string
	}{
		{"key reused", NextDoseReads{Replay: &Appointment{Fingerprint: "slot=10"}}, CodeKeyReused, ""},
		{"no booking", NextDoseReads{Series: ds, Slot: slot(10, 22*24*time.Hour)}, CodeNotFound, ""},
		{"another's", NextDoseReads{Booking: &SeriesBooking{PatientID: 6, Appointments: b.Appointments}, Series: ds, Slot: slot(10, 22*24*time.Hour)}, CodeNotFound, ""},
		{"all booked", NextDoseReads{Booking: full, Series: ds, Slot: slot(10, 22*24*time.Hour)}, CodeConflict, ""},
		{"dose 1 cancelled", NextDoseReads{Booking: &SeriesBooking{PatientID: 5, Appointments: []Appointment{cancelled}}, Series: ds, Slot: slot(10, 22*24*time.Hour)}, CodeConflict, ""},
		{"no slot", NextDoseReads{Booking: b, Series: ds}, CodeNotFound, "/slotId"},
		{"paid", NextDoseReads{Booking: b, Series: ds, Slot: &Slot{ID: 10, StartAt: day.Add(22 * 24 * time.Hour), FeeCents: 100}}, CodeInvalidRequest, "/slotId"},
		{"a day early", NextDoseReads{Booking: b, Series: ds, Slot: slot(10, 21*24*time.Hour-time.Minute)}, CodeDoseOutsideWindow, "/slotId"},
		{"a day late", NextDoseReads{Booking: b, Series: ds, Slot: slot(10, 29*24*time.Hour)}, CodeDoseOutsideWindow, "/slotId"},
		{"before dose 1", NextDoseReads{Booking: b, Series: ds, Slot: slot(10, -24*time.Hour)}, CodeDoseOutsideWindow, "/slotId"},
	} {
		p := DecideNextDose(r, c.rd)
		e, _ := p.Err.(*Error)
		if e == nil || e.Code != c.code || e.Pointer != c.ptr {
			t.Errorf("%s: %v (pointer %q), want %s at %q", c.name, p.Err, pointerOf(p.Err), c.code, c.ptr)
		}
	}
	if p := DecideNextDose(r, NextDoseReads{Replay: &Appointment{Fingerprint: r.Fingerprint}}); !p.Replay || p.Err != nil {
		t.Fatalf("replay %+v", p)
	}
}
