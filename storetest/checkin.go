package storetest

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// checkInCodes sign the conformance suite's check-in codes.
var checkInCodes = booking.NewCheckInCodes([]byte("storetest check-in key"))

func checkInAs(patientID int64, a booking.Appointment, code string) booking.CheckInRequest {
	return booking.CheckInRequest{AppointmentID: a.ID, PatientID: patientID, Code: code, Codes: checkInCodes}
}

// testCheckIn: BOOKED becomes ARRIVED inside the clinic's window and keeps
// its place; every refusal changes nothing; a repeat answers the same;
// ARRIVED counts as active everywhere (counters, overlap, reconciliation,
// cancel and staff transitions).
func testCheckIn(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	o := eventsOn(t, s)
	sl := f.slot(2)
	p, q := f.patient(), f.patient()
	a := f.mustBook(sl.ID, p)
	code := checkInCodes.Code(a.ID)
	at := sl.StartAt.Add(-10 * time.Minute)

	// The refusals, each changing nothing.
	_, _, err := s.CheckIn(f.ctx, checkInAs(p.ID, a, code), sl.StartAt.Add(-61*time.Minute))
	wantCode(t, err, booking.CodeCheckInTooEarly)
	_, _, err = s.CheckIn(f.ctx, checkInAs(p.ID, a, code), sl.StartAt.Add(16*time.Minute))
	wantCode(t, err, booking.CodeCheckInClosed)
	_, _, err = s.CheckIn(f.ctx, checkInAs(p.ID, a, checkInCodes.Code(a.ID+1)), at)
	wantCode(t, err, booking.CodeBadCheckInCode)
	_, _, err = s.CheckIn(f.ctx, checkInAs(q.ID, a, code), at)
	wantCode(t, err, booking.CodeNotFound)
	_, _, err = s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: a.ID, DoctorID: f.doctor2.ID, Codes: checkInCodes}, at)
	wantCode(t, err, booking.CodeNotFound)
	_, _, err = s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: 999999, Codes: checkInCodes}, at)
	wantCode(t, err, booking.CodeNotFound)
	if got, _ := s.GetAppointment(f.ctx, a.ID); got.Status != booking.StatusBooked || len(auditOf(t, s, booking.EntityAppointment, a.ID)) != 1 {
		t.Fatalf("refused check-ins changed %+v", got)
	}

	// The patient with the code.
	arrived, repeat, err := s.CheckIn(f.ctx, checkInAs(p.ID, a, code), at)
	must(t, err)
	if repeat || arrived.Status != booking.StatusArrived || arrived.QueueNumber != a.QueueNumber || !arrived.UpdatedAt.Equal(at) {
		t.Fatalf("check-in = %+v repeat %v", arrived, repeat)
	}
	// Again, later, by the doctor: the same answer, nothing changed.
	again, repeat, err := s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: a.ID, DoctorID: f.doctor.ID, Codes: checkInCodes}, sl.StartAt.Add(time.Hour))
	must(t, err)
	if !repeat || again.Status != booking.StatusArrived || !again.UpdatedAt.Equal(arrived.UpdatedAt) {
		t.Fatalf("repeated check-in = %+v repeat %v", again, repeat)
	}
	es := auditOf(t, s, booking.EntityAppointment, a.ID)
	if len(es) != 2 || es[0].Action != booking.AuditCheckIn {
		t.Fatalf("audit %+v, want the booking and one check-in", es)
	}
	if n, err := o.EventBacklog(f.ctx); err != nil || n != 2 {
		t.Fatalf("events %d (%v), want booked and arrived", n, err)
	}

	// ARRIVED holds the place: counted, overlapping, reconciled clean.
	if got := f.getSlot(sl.ID).BookedCount; got != 1 {
		t.Fatalf("booked_count %d with one ARRIVED, want 1", got)
	}
	overlapping := f.slot(2, startsAt(sl.StartAt.Add(10*time.Minute)), onDoctor(f.doctor2.ID))
	wantCode(t, f.book(overlapping.ID, req(p, overlapping.ID, "overlap")).Err, booking.CodeOverlapping)
	wantCode(t, f.book(sl.ID, req(p, sl.ID, "twice")).Err, booking.CodeAlreadyBooked)
	rep, err := s.Reconcile(f.ctx, at, false)
	must(t, err)
	if !rep.Clean() {
		t.Fatalf("reconciliation with an ARRIVED appointment: %+v", rep)
	}
	checkInvariants(t, h, s)

	// Candidates for a kiosk's code: BOOKED and ARRIVED in the range.
	b := f.mustBook(sl.ID, q)
	cs, err := s.ArrivalCandidates(f.ctx, sl.StartAt.Add(-time.Minute), sl.StartAt, 10)
	must(t, err)
	if len(cs) != 2 || cs[0].ID != a.ID || cs[1].ID != b.ID {
		t.Fatalf("candidates %+v, want %d and %d", cs, a.ID, b.ID)
	}
	if cs, err := s.ArrivalCandidates(f.ctx, sl.StartAt.Add(time.Second), sl.StartAt.Add(time.Hour), 10); err != nil || len(cs) != 0 {
		t.Fatalf("candidates after the start: %+v %v", cs, err)
	}

	// Staff complete an ARRIVED appointment once started, releasing it;
	// staff cancel an ARRIVED one before the start.
	_, err = s.Transition(f.ctx, a.ID, booking.StatusCompleted, at)
	wantCode(t, err, booking.CodeNotStarted)
	done, err := s.Transition(f.ctx, a.ID, booking.StatusCompleted, sl.StartAt)
	must(t, err)
	if done.Status != booking.StatusCompleted {
		t.Fatalf("complete = %+v", done)
	}
	_, _, err = s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: a.ID, Codes: checkInCodes}, at)
	wantCode(t, err, booking.CodeInvalidTransition)
	_, _, err = s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: b.ID, Codes: checkInCodes}, at)
	must(t, err)
	c, err := s.Cancel(f.ctx, b.ID, 0, at)
	must(t, err)
	if c.Status != booking.StatusCancelled || f.getSlot(sl.ID).BookedCount != 0 {
		t.Fatalf("staff cancel of an ARRIVED appointment: %+v, booked %d", c, f.getSlot(sl.ID).BookedCount)
	}
	checkInvariants(t, h, s)
}

// testCheckInPolicy: the clinic's policy moves the window.
func testCheckInPolicy(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	if pol.CheckInBeforeMinutes != booking.DefaultCheckInBeforeMinutes || pol.CheckInAfterMinutes != booking.DefaultCheckInAfterMinutes {
		t.Fatalf("a new clinic's window: %+v", pol)
	}
	pol.CheckInBeforeMinutes, pol.CheckInAfterMinutes = 120, 0
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	if got, _ := s.ClinicPolicy(f.ctx); got != pol {
		t.Fatalf("policy %+v, want %+v", got, pol)
	}
	sl := f.slot(1)
	p := f.patient()
	a := f.mustBook(sl.ID, p)
	code := checkInCodes.Code(a.ID)
	_, _, err = s.CheckIn(f.ctx, checkInAs(p.ID, a, code), sl.StartAt.Add(time.Minute))
	wantCode(t, err, booking.CodeCheckInClosed)
	_, _, err = s.CheckIn(f.ctx, checkInAs(p.ID, a, code), sl.StartAt.Add(-119*time.Minute))
	must(t, err)
}

// testRaceCheckIn: the patient's code and staff at once on one
// appointment: one ARRIVED, every answer that appointment ARRIVED, one
// of them new, one audit entry.
func testRaceCheckIn(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3)
	p := f.patient()
	a := f.mustBook(sl.ID, p)
	at := sl.StartAt.Add(-5 * time.Minute)
	const n = 16
	var fresh, fails atomic.Int64
	release(n, func(i int) {
		r := booking.CheckInRequest{AppointmentID: a.ID, Codes: checkInCodes}
		if i%2 == 0 {
			r = checkInAs(p.ID, a, checkInCodes.Display(a.ID))
		}
		got, repeat, err := s.CheckIn(f.ctx, r, at)
		switch {
		case err != nil || got.ID != a.ID || got.Status != booking.StatusArrived || got.QueueNumber != a.QueueNumber:
			fails.Add(1)
		case !repeat:
			fresh.Add(1)
		}
	})
	if fails.Load() != 0 || fresh.Load() != 1 {
		t.Fatalf("%d failed, %d new arrivals of %d concurrent check-ins; want 0 and 1", fails.Load(), fresh.Load(), n)
	}
	checkins := 0
	for _, e := range auditOf(t, s, booking.EntityAppointment, a.ID) {
		if e.Action == booking.AuditCheckIn {
			checkins++
		}
	}
	if checkins != 1 || f.getSlot(sl.ID).BookedCount != 1 {
		t.Fatalf("%d check-in audit entries, booked %d; want 1 and 1", checkins, f.getSlot(sl.ID).BookedCount)
	}
	checkInvariants(t, h, s)
}

// testAutoNoShow: with the policy's grace on, the BOOKED appointments not
// checked in by start + grace become NO_SHOW once, releasing their places
// and counting in the no-show rule; ARRIVED ones and those within the
// grace stay; with the grace off nothing happens.
func testAutoNoShow(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(3)
	p, q, r := f.patient(), f.patient(), f.patient()
	gone := f.mustBook(sl.ID, p)
	came := f.mustBook(sl.ID, q)
	later := f.mustBook(f.slot(1, startsAt(sl.StartAt.Add(time.Hour))).ID, r)
	_, _, err := s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: came.ID, Codes: checkInCodes}, sl.StartAt)
	must(t, err)
	after := sl.StartAt.Add(20 * time.Minute)
	if got, err := s.MarkNoShows(f.ctx, after, 10); err != nil || len(got) != 0 {
		t.Fatalf("with the grace off: %+v %v", got, err)
	}
	pol, err := s.ClinicPolicy(f.ctx)
	must(t, err)
	pol.NoShowGraceMinutes, pol.NoShowLimit, pol.NoShowBlockDays = 15, 1, 30
	_, err = s.SetClinicPolicy(f.ctx, pol)
	must(t, err)
	if got, err := s.MarkNoShows(f.ctx, sl.StartAt.Add(14*time.Minute), 10); err != nil || len(got) != 0 {
		t.Fatalf("within the grace: %+v %v", got, err)
	}
	got, err := s.MarkNoShows(f.ctx, after, 10)
	must(t, err)
	if len(got) != 1 || got[0].ID != gone.ID || got[0].Status != booking.StatusNoShow {
		t.Fatalf("marked %+v, want only %d", got, gone.ID)
	}
	if again, err := s.MarkNoShows(f.ctx, after.Add(time.Minute), 10); err != nil || len(again) != 0 {
		t.Fatalf("a second pass marked %+v %v", again, err)
	}
	for id, want := range map[int64]booking.Status{gone.ID: booking.StatusNoShow, came.ID: booking.StatusArrived, later.ID: booking.StatusBooked} {
		if a, _ := s.GetAppointment(f.ctx, id); a.Status != want {
			t.Errorf("appointment %d is %s, want %s", id, a.Status, want)
		}
	}
	es := auditOf(t, s, booking.EntityAppointment, gone.ID)
	if f.getSlot(sl.ID).BookedCount != 1 || len(es) != 2 || es[0].Action != booking.AuditAutoNoShow {
		t.Fatalf("booked %d, audit %+v", f.getSlot(sl.ID).BookedCount, es)
	}
	// The no-show rule counts it: p's self-booking is blocked.
	wantCode(t, f.bookAt(f.slot(1, startsAt(after.Add(48*time.Hour))).ID, req(p, 0, "after-no-show"), after).Err, booking.CodeBookingBlocked)
	checkInvariants(t, h, s)
}
