package booking

import "testing"

// TestDayState: every appointment state and queue step lands on its day
// list's word.
func TestDayState(t *testing.T) {
	for _, c := range []struct {
		status Status
		step   string
		want   string
	}{
		{StatusHeld, "", DayHeld},
		{StatusBooked, "", DayBooked},
		{StatusArrived, "", DayArrived},
		{StatusArrived, QueueWaiting, DayArrived},
		{StatusArrived, QueueSkipped, DayArrived},
		{StatusArrived, QueueCalled, DayCalled},
		{StatusArrived, QueueStarted, DayInConsultation},
		{StatusArrived, QueueFinished, DayDone},
		{StatusCompleted, QueueFinished, DayDone},
		{StatusCompleted, "", DayDone},
		{StatusNoShow, "", DayNoShow},
		{StatusCancelled, "", DayCancelled},
		{StatusExpired, "", DayExpired},
	} {
		if got := DayState(Appointment{Status: c.status}, QueueEntry{Step: c.step}); got != c.want {
			t.Errorf("%s at step %q: %q, want %q", c.status, c.step, got, c.want)
		}
	}
}
