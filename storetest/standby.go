package storetest

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// standby opts p in for leftover doses at the fixture's site for the
// local day of at.
func (f *fixture) standby(p booking.Patient, from, to time.Time) booking.WaitlistEntry {
	f.t.Helper()
	e := booking.WaitlistEntry{PatientID: p.ID, SiteID: f.dept.SiteID, From: from, To: to, IdempotencyKey: "standby"}
	must(f.t, booking.CheckStandby(&e, now))
	got, _, err := f.s.JoinWaitlist(f.ctx, e, now)
	must(f.t, err)
	if got.SiteID != f.dept.SiteID || got.State != booking.EntryWaiting {
		f.t.Fatalf("standby = %+v", got)
	}
	return got
}

// testLeftoverStandby: once a slot's check-in window has closed, its
// places left go to the site's standbys in opt-in order, as held offers,
// never more than the places left however many scans race, each place to
// one person at a time; accepting books, a decline or an expiry passes the
// place to the next standby.
func testLeftoverStandby(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(4)
	var held []booking.Appointment
	for _, p := range f.patients(3) {
		held = append(held, f.mustBook(sl.ID, p))
	}
	_, err := s.Cancel(f.ctx, held[2].ID, held[2].PatientID, now)
	must(t, err)
	// Two places left (one never booked, one cancelled).
	day := sl.StartAt.Add(-8 * time.Hour)
	ps := f.patients(8)
	var es []booking.WaitlistEntry
	for _, p := range ps {
		es = append(es, f.standby(p, day, day.Add(24*time.Hour)))
	}
	late := f.patient() // a standby for later in the day only
	f.standby(late, sl.StartAt.Add(time.Hour), day.Add(24*time.Hour))
	// A retry is the same standby; the list has it as a site's entry.
	again := f.standby(ps[0], day, day.Add(24*time.Hour))
	if again.ID != es[0].ID {
		t.Fatal("a repeated opt-in made another standby")
	}

	closed := sl.StartAt.Add(16 * time.Minute)
	if ids, err := s.LeftoverSlots(f.ctx, closed, 10); err != nil || len(ids) != 0 {
		t.Fatalf("policy off: candidates %v, %v", ids, err)
	}
	if as, err := s.OfferLeftovers(f.ctx, sl.ID, closed); err != nil || len(as) != 0 {
		t.Fatalf("policy off: offers %v, %v", as, err)
	}
	p, err := s.StandbyPolicy(f.ctx, f.dept.SiteID)
	must(t, err)
	if p.Enabled || p.HoldMinutes != booking.DefaultLeftoverHoldMinutes {
		t.Fatalf("default policy = %+v", p)
	}
	_, err = s.StandbyPolicy(f.ctx, 999999)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.SetStandbyPolicy(f.ctx, booking.StandbyPolicy{SiteID: 999999, Enabled: true, HoldMinutes: 10}, now)
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.SetStandbyPolicy(f.ctx, booking.StandbyPolicy{SiteID: f.dept.SiteID, Enabled: true, HoldMinutes: 10}, now)
	must(t, err)

	// The window still open: nothing yet.
	if as, err := s.OfferLeftovers(f.ctx, sl.ID, sl.StartAt.Add(10*time.Minute)); err != nil || len(as) != 0 {
		t.Fatalf("window open: offers %v, %v", as, err)
	}
	ids, err := s.LeftoverSlots(f.ctx, closed, 10)
	must(t, err)
	if fmt.Sprint(ids) != fmt.Sprint([]int64{sl.ID}) {
		t.Fatalf("candidates %v, want [%d]", ids, sl.ID)
	}

	// Many scans at once: two offers in all, to the first two standbys.
	var mu sync.Mutex
	var offers []booking.Appointment
	release(8, func(int) {
		as, err := s.OfferLeftovers(f.ctx, sl.ID, closed)
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		offers = append(offers, as...)
		mu.Unlock()
	})
	if len(offers) != 2 {
		t.Fatalf("%d offers for 2 places", len(offers))
	}
	got := map[int64]bool{}
	for _, a := range offers {
		got[a.PatientID] = true
		if a.Status != booking.StatusHeld || a.HoldExpiresAt == nil || !a.HoldExpiresAt.Equal(closed.Add(10*time.Minute)) {
			t.Fatalf("offer %+v", a)
		}
	}
	if !got[ps[0].ID] || !got[ps[1].ID] {
		t.Fatalf("offers went to %v, not the first two standbys", got)
	}
	if b := f.getSlot(sl.ID).BookedCount; b != 4 {
		t.Fatalf("booked %d after the offers, want 4", b)
	}
	offerInvariants(t, f, ps)

	// Every standby answers at once: only the two offered can accept, and
	// the slot is never oversold.
	var accepted atomic.Int32
	release(len(ps), func(i int) {
		e := f.entry(ps[i])
		_, _, err := s.AnswerOffer(f.ctx, booking.OfferAnswer{EntryID: e.ID, PatientID: ps[i].ID, Accept: i != 1}, closed.Add(time.Minute))
		switch {
		case err == nil && i != 1:
			accepted.Add(1)
		case err == nil:
		case booking.ErrorCode(err) != booking.CodeInvalidTransition:
			t.Errorf("answer of standby %d: %v", i, err)
		}
	})
	if accepted.Load() != 1 {
		t.Fatalf("%d accepted, want 1 (the first standby; the second declined)", accepted.Load())
	}
	if e := f.entry(ps[0]); e.State != booking.EntryAccepted {
		t.Fatalf("first standby %+v", e)
	}
	if e := f.entry(ps[1]); e.State != booking.EntryDeclined {
		t.Fatalf("second standby %+v", e)
	}
	if b := f.getSlot(sl.ID).BookedCount; b != 3 {
		t.Fatalf("booked %d after one decline, want 3", b)
	}

	// The declined place goes to the next standby, held one at a time
	// (AtOnce 1), and its expiry passes it on again.
	_, err = s.SetStandbyPolicy(f.ctx, booking.StandbyPolicy{SiteID: f.dept.SiteID, Enabled: true, HoldMinutes: 5, AtOnce: 1}, now)
	must(t, err)
	t2 := closed.Add(2 * time.Minute)
	as, err := s.OfferLeftovers(f.ctx, sl.ID, t2)
	must(t, err)
	if len(as) != 1 || as[0].PatientID != ps[2].ID {
		t.Fatalf("after the decline: %+v, want one offer to the third standby", as)
	}
	if as, _ := s.OfferLeftovers(f.ctx, sl.ID, t2); len(as) != 0 {
		t.Fatalf("a place offered twice: %+v", as)
	}
	_, err = s.ExpireHolds(f.ctx, t2.Add(6*time.Minute), 100)
	must(t, err)
	if e := f.entry(ps[2]); e.State != booking.EntryExpired {
		t.Fatalf("third standby after its hold expired: %+v", e)
	}
	as, err = s.OfferLeftovers(f.ctx, sl.ID, t2.Add(7*time.Minute))
	must(t, err)
	if len(as) != 1 || as[0].PatientID != ps[3].ID {
		t.Fatalf("after the expiry: %+v, want one offer to the fourth standby", as)
	}
	offerInvariants(t, f, ps)

	// The staff's day count, in the site's day.
	d, err := s.StandbyDay(f.ctx, f.dept.SiteID, day, day.Add(24*time.Hour))
	must(t, err)
	if d.Waiting != 5 || d.Offered != 1 || d.Accepted != 1 {
		t.Fatalf("day count %+v, want 5 waiting (4 + the later one), 1 offered, 1 accepted", d)
	}
	// The next day: no offer (the day is over).
	if as, _ := s.OfferLeftovers(f.ctx, sl.ID, day.Add(25*time.Hour)); len(as) != 0 {
		t.Fatalf("offers the next day: %+v", as)
	}
}
