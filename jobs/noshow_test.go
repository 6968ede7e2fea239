package jobs

import (
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// TestNoShowJob: with the policy's grace on, the periodic pass (run at
// start) makes NO_SHOW a BOOKED appointment past its start and grace,
// and leaves an ARRIVED one.
func TestNoShowJob(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sl := f.slot(2, 0)
		svc := service.NewService(s, service.Options{Now: clock(sl.StartAt.Add(11 * time.Minute))})
		r := runner(t, s, Config{Service: svc, Notifier: &recorder{}}, false) // the outbox, for the confirmations
		as := f.book(sl.ID, t0, f.patient(), f.patient())
		gone, came := as[0], as[1]
		_, _, err := s.CheckIn(f.ctx, booking.CheckInRequest{AppointmentID: came.ID}, sl.StartAt)
		must(t, err)
		pol, err := s.ClinicPolicy(f.ctx)
		must(t, err)
		pol.NoShowGraceMinutes = 10
		_, err = s.SetClinicPolicy(f.ctx, pol)
		must(t, err)
		startRunner(t, r)
		eventually(t, "the no-show pass", 20*time.Second, func() bool { return finished(t, r, NoShowArgs{}.Kind()) >= 1 })
		for id, want := range map[int64]booking.Status{gone.ID: booking.StatusNoShow, came.ID: booking.StatusArrived} {
			if a, _ := s.GetAppointment(f.ctx, id); a.Status != want {
				t.Fatalf("appointment %d is %s, want %s", id, a.Status, want)
			}
		}
		if got, _ := s.GetSlot(f.ctx, sl.ID); got.BookedCount != 1 {
			t.Fatalf("booked %d, want 1 (the arrived one)", got.BookedCount)
		}
	})
}
