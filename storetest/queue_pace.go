package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// testQueuePace: the day's read carries the lengths of its completed
// consultations, start (or call, when never started) to completion,
// newest first; not another doctor's, not a consultation still going, not
// a call left unseen (NO_SHOW).
func testQueuePace(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(6)
	r := f.queueDay(f.doctor, sl)
	at := sl.StartAt
	ps := f.patients(6)
	for i := range 5 {
		f.arrive(sl, ps[i], at.Add(-time.Duration(10-i)*time.Minute))
	}
	other := f.slot(1, onDoctor(f.doctor2.ID), startsAt(sl.StartAt))
	o := f.arrive(other, ps[5], at.Add(-time.Minute))
	ro := f.queueDay(f.doctor2, other)
	c, _, err := s.CallNext(f.ctx, ro, at)
	must(t, err)
	_, err = s.Transition(f.ctx, c.Next.AppointmentID, booking.StatusCompleted, at.Add(time.Minute))
	must(t, err)
	if c.Next.AppointmentID != o.ID {
		t.Fatalf("doctor 2 called %d, want %d", c.Next.AppointmentID, o.ID)
	}

	now := at
	// consult calls the next, starts it (unless started is false) after a
	// minute and completes it after length.
	consult := func(started bool, length time.Duration) int64 {
		t.Helper()
		c, _, err := s.CallNext(f.ctx, r, now)
		must(t, err)
		from := now
		if started {
			from = now.Add(time.Minute)
			_, err = s.StepQueue(f.ctx, booking.QueueStep{AppointmentID: c.Next.AppointmentID, Action: booking.QueueActionStart}, from)
			must(t, err)
		}
		now = from.Add(length)
		_, err = s.Transition(f.ctx, c.Next.AppointmentID, booking.StatusCompleted, now)
		must(t, err)
		return c.Next.AppointmentID
	}
	consult(true, 7*time.Minute)
	consult(false, 5*time.Minute)
	consult(true, 12*time.Minute)
	c, _, err = s.CallNext(f.ctx, r, now) // called, then left unseen: no consultation
	must(t, err)
	_, err = s.Transition(f.ctx, c.Next.AppointmentID, booking.StatusNoShow, now.Add(time.Minute))
	must(t, err)
	c, _, err = s.CallNext(f.ctx, r, now) // in consultation still
	must(t, err)
	_, err = s.StepQueue(f.ctx, booking.QueueStep{AppointmentID: c.Next.AppointmentID, Action: booking.QueueActionStart}, now)
	must(t, err)

	d, err := s.QueueDay(f.ctx, r)
	must(t, err)
	want := []time.Duration{12 * time.Minute, 5 * time.Minute, 7 * time.Minute}
	if !slices.Equal(d.Done, want) {
		t.Fatalf("done %v, want %v (newest first)", d.Done, want)
	}
	if got := booking.Pace(d.Done); got != 7 {
		t.Fatalf("pace %d, want the median 7", got)
	}
	d2, err := s.QueueDay(f.ctx, ro)
	must(t, err)
	if len(d2.Done) != 1 || d2.Done[0] != time.Minute {
		t.Fatalf("doctor 2's day: done %v, want [1m]", d2.Done)
	}
	checkInvariants(t, h, s)
}
