package booking

import (
	"slices"
	"testing"
	"time"
)

func TestEntryMatchesPartOfDayInTheDoctorsZone(t *testing.T) {
	d := Doctor{ID: 1, DepartmentID: 7, TimeZone: "Europe/Paris"}
	at := time.Date(2026, 6, 1, 9, 30, 0, 0, time.UTC) // 11:30 in Paris: morning
	sl := Slot{ID: 3, DoctorID: 1, StartAt: at}
	e := WaitlistEntry{DoctorID: 1, From: at.Add(-time.Hour), To: at.Add(time.Hour), PartOfDay: PartMorning}
	if !EntryMatches(e, sl, d) {
		t.Fatal("11:30 local is a morning")
	}
	e.PartOfDay = PartAfternoon
	if EntryMatches(e, sl, d) {
		t.Fatal("11:30 local is not an afternoon")
	}
	e = WaitlistEntry{DepartmentID: 7, From: at, To: at.Add(time.Hour), PartOfDay: PartAny}
	if !EntryMatches(e, sl, d) {
		t.Fatal("department")
	}
	e.From = at.Add(time.Minute)
	if EntryMatches(e, sl, d) {
		t.Fatal("before the period")
	}
}

func TestDecideOffersInRequestOrderOnePerPatient(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	sl := Slot{ID: 3, DoctorID: 1, StartAt: now.Add(time.Hour), Status: SlotOpen, Capacity: 3, BookedCount: 3, OfferPending: 2}
	w := func(id, p int64) WaitlistEntry {
		return WaitlistEntry{ID: id, PatientID: p, DoctorID: 1, From: now, To: now.Add(48 * time.Hour), PartOfDay: PartAny, State: EntryWaiting}
	}
	d := DecideOffers(OfferReads{Slot: sl, Doctor: Doctor{ID: 1}, Waiting: []WaitlistEntry{w(1, 10), w(2, 10), w(3, 11), w(4, 12)},
		Busy: map[int64]bool{11: true}, Taken: []int{1}}, now)
	if len(d.Offers) != 2 || d.Offers[0].EntryID != 1 || d.Offers[1].EntryID != 4 || d.Return != 0 {
		t.Fatalf("%+v", d)
	}
	if d.Offers[0].Queue != 2 || d.Offers[1].Queue != 3 || len(d.Ended) != 1 || d.Ended[0] != 3 {
		t.Fatalf("%+v", d)
	}
	if !d.Offers[0].ExpiresAt.Equal(now.Add(DefaultOfferMinutes * time.Minute)) {
		t.Fatal("offer time")
	}
	// Nobody left: the places return to open booking; a started slot too.
	if d := DecideOffers(OfferReads{Slot: sl}, now); d.Return != 2 {
		t.Fatalf("%+v", d)
	}
	if d := DecideOffers(OfferReads{Slot: sl, Waiting: []WaitlistEntry{w(1, 10)}}, sl.StartAt); d.Return != 2 || len(d.Offers) != 0 {
		t.Fatalf("%+v", d)
	}
}

func TestDecideRescheduleOrder(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	a := Appointment{ID: 1, PatientID: 5, SlotID: 2, Status: StatusBooked, StartAt: now.Add(time.Hour)}
	from := Slot{ID: 2, FeeCents: 0}
	to := Slot{ID: 3, Status: SlotOpen, StartAt: now.Add(2 * time.Hour), Capacity: 2, BookedCount: 1}
	r := RescheduleRequest{AppointmentID: 1, PatientID: 5, SlotID: 3, IdempotencyKey: "k", Fingerprint: RescheduleFingerprint(1, 3)}
	d := DecideReschedule(r, RescheduleReads{Appointment: &a, From: &from, To: &to, Taken: []int{1}}, now)
	if d.Err != nil || d.Queue != 2 || d.Appointment.SlotID != 3 || d.FromSlotID != 2 || d.Notification.Kind != NotifyRescheduled {
		t.Fatalf("%+v", d)
	}
	paid := to
	paid.FeeCents = 100
	if d := DecideReschedule(r, RescheduleReads{Appointment: &a, From: &from, To: &paid}, now); ErrorCode(d.Err) != CodeFeeDiffers {
		t.Fatalf("%v", d.Err)
	}
	other := r
	other.PatientID = 6
	rep := a
	if d := DecideReschedule(other, RescheduleReads{Appointment: &a, Replay: &rep, ReplayFingerprint: r.Fingerprint}, now); ErrorCode(d.Err) != CodeNotFound {
		t.Fatalf("another patient's key replayed: %v", d.Err)
	}
	if d := DecideReschedule(r, RescheduleReads{Appointment: &a, Replay: &rep, ReplayFingerprint: r.Fingerprint}, now); !d.Replayed {
		t.Fatal("replay")
	}
}

func TestDecideReminder(t *testing.T) {
	start := time.Date(2026, 6, 2, 10, 0, 0, 0, time.UTC)
	c := ReminderCandidate{StartAt: start}
	for _, tc := range []struct {
		at     time.Time
		done   []int
		send   int
		passed int
	}{
		{start.Add(-25 * time.Hour), nil, 0, 0},
		{start.Add(-24 * time.Hour), nil, 1440, 0},
		{start.Add(-3 * time.Hour), []int{1440}, 0, 0},
		{start.Add(-time.Hour), nil, 120, 1},
		{start.Add(-time.Hour), []int{1440, 120}, 0, 0},
		{start, nil, 0, 0},
	} {
		c.Done = tc.done
		d := DecideReminder(c, DefaultReminders, tc.at)
		if d.Send != tc.send || len(d.Passed) != tc.passed {
			t.Errorf("at start%v done %v: %+v", tc.at.Sub(start), tc.done, d)
		}
	}
	c.Schedule, c.Done = "30m", nil
	if d := DecideReminder(c, DefaultReminders, start.Add(-2*time.Hour)); d.Send != 0 {
		t.Fatalf("a schedule's own offsets replace the server's: %+v", d)
	}
	if _, err := ParseReminders("24h,nope"); ErrorCode(err) != CodeInvalidRequest {
		t.Fatal(err)
	}
}

// A batch's winners leave the list when the place matches what they wait
// for; a patient refused in the batch, or waiting for something else,
// stays.
func TestDecideBookingFulfilsWaitingEntries(t *testing.T) {
	start := time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)
	now := start.Add(-24 * time.Hour)
	sl := Slot{ID: 7, DoctorID: 3, StartAt: start, EndAt: start.Add(30 * time.Minute), Capacity: 2, OpensAt: now.Add(-time.Hour), Status: SlotOpen}
	entry := func(id, patient int64, part string) WaitlistEntry {
		return WaitlistEntry{ID: id, PatientID: patient, DoctorID: 3, From: start.Add(-time.Hour), To: start.Add(time.Hour), PartOfDay: part, State: EntryWaiting}
	}
	reqs := []BookRequest{{PatientID: 10, IdempotencyKey: "a"}, {PatientID: 11, IdempotencyKey: "b"}, {PatientID: 12, IdempotencyKey: "c"}}
	rd := BookReads{Found: true, Slot: sl, Doctor: Doctor{ID: 3, DepartmentID: 1, TimeZone: "UTC"},
		Waiting: []WaitlistEntry{entry(1, 10, PartAny), entry(2, 11, PartAfternoon), entry(3, 12, PartAny), entry(4, 10, PartMorning)}}
	d := DecideBooking(reqs, rd, now)
	if len(d.Winners) != 2 || !slices.Equal(d.Fulfilled, []int64{1, 4}) {
		t.Fatalf("winners %v, fulfilled %v; want 2 winners and entries [1 4] (11 waits for an afternoon, 12 got no place)", d.Winners, d.Fulfilled)
	}
}
