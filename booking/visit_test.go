package booking

import (
	"testing"
	"time"
)

func visitFixture() (VisitRequest, VisitReads, time.Time) {
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	start := now.Add(24 * time.Hour)
	var run []Slot
	for i := range 4 {
		at := start.Add(time.Duration(i) * 15 * time.Minute)
		// Ids out of time order: the places come back in id order.
		run = append(run, Slot{ID: int64(10 - i), DoctorID: 7, StartAt: at, EndAt: at.Add(15 * time.Minute),
			Capacity: 2, OpensAt: now.Add(-time.Hour), Status: SlotOpen, HoldSeconds: 600})
	}
	svc := &Service{ID: 3, Name: "Consultation", Minutes: 45, Level: LevelOrdinary, DoctorIDs: []int64{7}, Active: true}
	r := VisitRequest{PatientID: 5, ServiceID: 3, SlotID: 10, IdempotencyKey: "k", Fingerprint: VisitFingerprint(10, 3)}
	return r, VisitReads{Service: svc, Run: run, Taken: []int{1, 3}}, now
}

func TestDecideVisitTakesEveryPlaceOrNone(t *testing.T) {
	r, rd, now := visitFixture()
	d := DecideVisit(r, rd, now)
	if d.Err != nil {
		t.Fatal(d.Err)
	}
	a := d.Appointment
	if a.SlotID != 10 || a.QueueNumber != 2 || a.Status != StatusBooked || !a.EndAt.Equal(rd.Run[2].EndAt) || a.ServiceID != 3 {
		t.Fatalf("appointment %+v", a)
	}
	if got := d.Places; len(got) != 3 || got[0] != 8 || got[2] != 10 {
		t.Fatalf("places %v, want 8 9 10", got)
	}
	if len(d.Extra) != 2 || d.Notification.Kind != NotifyConfirmation {
		t.Fatalf("extra %v, notification %+v", d.Extra, d.Notification)
	}

	rd.Run[2].BookedCount = 2
	if d := DecideVisit(r, rd, now); ErrorCode(d.Err) != CodeSlotFull || d.Err.(*Error).SlotID != 8 || d.Places != nil {
		t.Fatalf("a full third slot: %+v", d)
	}
}

func TestDecideVisitRefusals(t *testing.T) {
	cases := []struct {
		name string
		edit func(*VisitRequest, *VisitReads)
		code Code
	}{
		{"replay", func(r *VisitRequest, rd *VisitReads) { rd.Existing = &Appointment{ID: 1, Fingerprint: r.Fingerprint} }, ""},
		{"key reused", func(_ *VisitRequest, rd *VisitReads) { rd.Existing = &Appointment{ID: 1, Fingerprint: "slot=10"} }, CodeKeyReused},
		{"no service", func(_ *VisitRequest, rd *VisitReads) { rd.Service = nil }, CodeNotFound},
		{"withdrawn", func(_ *VisitRequest, rd *VisitReads) { rd.Service.Active = false }, CodeNotFound},
		{"no slot", func(_ *VisitRequest, rd *VisitReads) { rd.Run = nil }, CodeNotFound},
		{"not offered", func(_ *VisitRequest, rd *VisitReads) { rd.Service.DoctorIDs = []int64{8} }, CodeServiceNotOffered},
		{"gap", func(_ *VisitRequest, rd *VisitReads) { rd.Run = append(rd.Run[:1], rd.Run[2:]...) }, CodeServiceNotOffered},
		{"too long", func(_ *VisitRequest, rd *VisitReads) { rd.Service.Minutes = 75 }, CodeServiceNotOffered},
		{"not a multiple", func(_ *VisitRequest, rd *VisitReads) { rd.Service.Minutes = 40 }, CodeServiceNotOffered},
		{"closed", func(_ *VisitRequest, rd *VisitReads) { rd.Run[1].Status = SlotClosed }, CodeSlotClosed},
		{"missing patient", func(_ *VisitRequest, rd *VisitReads) { rd.Missing = true }, CodeNotFound},
		{"holding", func(_ *VisitRequest, rd *VisitReads) { rd.Holding = true }, CodeAlreadyBooked},
		{"overlapping", func(_ *VisitRequest, rd *VisitReads) { rd.Overlapping = true }, CodeOverlapping},
		{"cap", func(_ *VisitRequest, rd *VisitReads) { rd.Policy.MaxActive, rd.Load.Active = 1, 1 }, CodeLimitReached},
		{"behind a waiting room", func(_ *VisitRequest, rd *VisitReads) { rd.OpeningID = 4 }, CodeNotAdmitted},
		{"admitted to another opening", func(r *VisitRequest, rd *VisitReads) { rd.OpeningID, r.Admission = 4, 5 }, CodeNotAdmitted},
		{"admitted", func(r *VisitRequest, rd *VisitReads) { rd.OpeningID, r.Admission = 4, 4 }, ""},
		{"staff for a caller", func(r *VisitRequest, rd *VisitReads) { rd.OpeningID, r.Staff = 4, true }, ""},
	}
	for _, c := range cases {
		r, rd, now := visitFixture()
		svc := *rd.Service
		rd.Service = &svc
		c.edit(&r, &rd)
		d := DecideVisit(r, rd, now)
		if got := ErrorCode(d.Err); got != c.code {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, d.Err, c.code)
		}
		if c.code != "" && (d.Places != nil || d.Replayed) {
			t.Errorf("%s: a refusal takes places %v", c.name, d.Places)
		}
	}
}

func TestDecideVisitHeldWithAFee(t *testing.T) {
	r, rd, now := visitFixture()
	rd.Run[0].FeeCents = 2500
	d := DecideVisit(r, rd, now)
	if d.Err != nil || d.Appointment.Status != StatusHeld || d.Appointment.HoldExpiresAt == nil ||
		!d.Appointment.HoldExpiresAt.Equal(now.Add(10*time.Minute)) || d.Notification.Kind != "" {
		t.Fatalf("%+v", d)
	}
}

func TestFreePlaces(t *testing.T) {
	_, rd, now := visitFixture()
	svc := *rd.Service
	svc.DoctorIDs = []int64{7, 8}
	// Doctor 8: two consecutive free slots at the same start as doctor 7's.
	other := []Slot{rd.Run[0], rd.Run[1], rd.Run[2]}
	for i := range other {
		other[i].ID, other[i].DoctorID = int64(20+i), 8
	}
	rd.Run[1].BookedCount = 2 // doctor 7's second slot full: no run over it
	places := FreePlaces(svc, append(rd.Run, other...), now)
	// Doctor 7 can start only at its third slot (third, fourth: 30 of 45
	// minutes, so not even there); doctor 8 at its first.
	if len(places) != 1 || places[0].DoctorID != 8 || places[0].SlotID != 20 || !places[0].EndAt.Equal(other[2].EndAt) {
		t.Fatalf("places %+v", places)
	}
	svc.Minutes = 15
	places = FreePlaces(svc, append(rd.Run, other...), now)
	if len(places) != 6 || places[0].DoctorID != 7 || places[1].DoctorID != 8 || !places[1].StartAt.Equal(places[0].StartAt) {
		t.Fatalf("15-minute places %+v", places)
	}
}
