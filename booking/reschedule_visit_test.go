package booking

import (
	"fmt"
	"testing"
	"time"
)

// A visit's move keeps the places it holds in its new run, takes the
// others and gives back the rest; its refusals are DecideVisit's.
func TestDecideRescheduleVisit(t *testing.T) {
	now := time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)
	at := now.Add(24 * time.Hour)
	sl := func(id int64, i int) Slot {
		s := at.Add(time.Duration(i) * 15 * time.Minute)
		return Slot{ID: id, DoctorID: 4, Status: SlotOpen, StartAt: s, EndAt: s.Add(15 * time.Minute), Capacity: 1, OpensAt: now}
	}
	svc := Service{ID: 9, Minutes: 45, DoctorIDs: []int64{4}, Active: true}
	// The visit holds 10, 11, 12 (first 10); slots 13 and 14 follow.
	a := Appointment{ID: 1, PatientID: 5, SlotID: 10, DoctorID: 4, ServiceID: 9, Status: StatusBooked,
		StartAt: at, EndAt: at.Add(45 * time.Minute)}
	s10, s11, s12, s13, s14 := sl(10, 0), sl(11, 1), sl(12, 2), sl(13, 3), sl(14, 4)
	s11.BookedCount, s12.BookedCount = 1, 1
	r := RescheduleRequest{AppointmentID: 1, PatientID: 5, SlotID: 11, IdempotencyKey: "k", Fingerprint: RescheduleFingerprint(1, 11)}
	rd := RescheduleReads{Appointment: &a, From: &s10, To: &s11, Service: &svc, Places: []int64{11, 12}, ToRun: []Slot{s11, s12, s13}}
	d := DecideReschedule(r, rd, now)
	if d.Err != nil || fmt.Sprint(d.Take, d.Released, d.Extra) != "[13] [10] [12 13]" ||
		!d.Appointment.StartAt.Equal(s11.StartAt) || !d.Appointment.EndAt.Equal(s13.EndAt) || d.Appointment.SlotID != 11 {
		t.Fatalf("%+v", d)
	}

	for _, c := range []struct {
		name string
		edit func(*RescheduleReads)
		code Code
	}{
		{"withdrawn", func(rd *RescheduleReads) { rd.Service = &Service{ID: 9, Minutes: 45, DoctorIDs: []int64{4}} }, CodeNotFound},
		{"not offered", func(rd *RescheduleReads) {
			rd.Service = &Service{ID: 9, Minutes: 45, DoctorIDs: []int64{7}, Active: true}
		}, CodeServiceNotOffered},
		{"too short", func(rd *RescheduleReads) { rd.ToRun = []Slot{s11, s12} }, CodeServiceNotOffered},
		{"gap", func(rd *RescheduleReads) { rd.ToRun = []Slot{s11, s12, s14} }, CodeServiceNotOffered},
		{"new slot full", func(rd *RescheduleReads) { full := s13; full.BookedCount = 1; rd.ToRun = []Slot{s11, s12, full} }, CodeSlotFull},
		{"holds", func(rd *RescheduleReads) { rd.HoldsTo = true }, CodeAlreadyBooked},
	} {
		x := rd
		c.edit(&x)
		if d := DecideReschedule(r, x, now); ErrorCode(d.Err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, d.Err, c.code)
		}
	}
}
