package jobs

import (
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// TestLeftoverJob: with the site's policy on, the periodic leftover scan
// (run at start) offers a slot's place left after its check-in window to
// the first standby, a HELD offer with its message; the second standby
// waits.
func TestLeftoverJob(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sl := f.slot(2, 0)
		at := sl.StartAt.Add(20 * time.Minute)
		svc := service.NewService(s, service.Options{Now: clock(at)})
		rec := &recorder{}
		r := runner(t, s, Config{Service: svc, Notifier: rec}, false)
		f.book(sl.ID, t0, f.patient())
		depts, err := s.ListAllDepartments(f.ctx, booking.Page{Limit: 10})
		must(t, err)
		dept := depts[0]
		var standbys []booking.WaitlistEntry
		for _, p := range []booking.Patient{f.patient(), f.patient()} {
			e := booking.WaitlistEntry{PatientID: p.ID, SiteID: dept.SiteID, From: t0, To: t0.Add(3 * 24 * time.Hour), IdempotencyKey: "sb"}
			must(t, booking.CheckStandby(&e, t0))
			e, _, err := s.JoinWaitlist(f.ctx, e, t0)
			must(t, err)
			standbys = append(standbys, e)
		}
		_, err = s.SetStandbyPolicy(f.ctx, booking.StandbyPolicy{SiteID: dept.SiteID, Enabled: true, HoldMinutes: 10}, t0)
		must(t, err)
		startRunner(t, r)
		eventually(t, "the leftover offer's message", 20*time.Second, func() bool {
			for _, m := range rec.messages() {
				if m.Kind == notify.KindLeftoverOffer {
					return true
				}
			}
			return false
		})
		es, err := s.ListWaitlist(f.ctx, standbys[0].PatientID)
		must(t, err)
		if len(es) != 1 || es[0].State != booking.EntryOffered || es[0].OfferExpiresAt == nil || !es[0].OfferExpiresAt.Equal(at.Add(10*time.Minute)) {
			t.Fatalf("first standby %+v", es)
		}
		if es, _ := s.ListWaitlist(f.ctx, standbys[1].PatientID); len(es) != 1 || es[0].State != booking.EntryWaiting {
			t.Fatalf("second standby %+v", es)
		}
		if got, _ := s.GetSlot(f.ctx, sl.ID); got.BookedCount != 2 {
			t.Fatalf("booked %d, want 2", got.BookedCount)
		}
	})
}
