package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
)

// A patient reschedules from the appointment page, joins the waitlist of a
// full day, sees their position, gets an offer with its countdown when a
// place is freed, and accepts it.
func TestE2ERescheduleAndWaitlist(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)
	p := s.patients[0]
	bg := context.Background()
	s.signIn(t, ctx, p, "", false)

	s.openDay(t, ctx)
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-slot="%d"] button[type=submit]`, s.slots[1].ID))),
		chromedp.WaitVisible(chromedp.CSS(".ticket")),
		chromedp.Click(chromedp.CSS(`a[href$="/reschedule"]`)),
		chromedp.WaitVisible(chromedp.CSS("ul.slots")),
	)
	screenshot(t, ctx, "reschedule")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-slot="%d"] button[type=submit]`, s.slots[2].ID))),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "moved") {
		t.Fatalf("after the move: %q", got)
	}
	from, err := s.store.GetSlot(bg, s.slots[1].ID)
	must(t, err)
	to, err := s.store.GetSlot(bg, s.slots[2].ID)
	must(t, err)
	if from.BookedCount != 0 || to.BookedCount != 1 {
		t.Fatalf("counters after the move: %d, %d", from.BookedCount, to.BookedCount)
	}

	// Fill the rest of the day: it offers the waitlist.
	var last booking.Appointment
	for i, sl := range s.slots[:6] {
		if sl.ID == s.slots[0].ID || sl.ID == s.slots[2].ID {
			continue
		}
		res := s.svc.Book(bg, s.patients[1].ID+int64(0), sl.ID, fmt.Sprintf("fill-%d", i))
		if res.Err != nil {
			other, err := s.store.CreatePatient(bg, booking.Patient{Name: fmt.Sprintf("Filler %d", i)})
			must(t, err)
			res = s.svc.Book(bg, other.ID, sl.ID, "fill")
		}
		must(t, res.Err)
		last = res.Appointment
	}
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/doctors/%d/days/%s", s.url, s.doctor.ID, s.tomorrow)), chromedp.WaitVisible(chromedp.CSS("ul.slots")))
	screenshot(t, ctx, "day-full-waitlist")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`form[action="/waitlist"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("[data-position]")),
	)
	if got := text(t, ctx, "[data-position]"); got != "1" {
		t.Fatalf("position %q", got)
	}
	// A place is freed; the offer job (run here by hand) holds it for p.
	_, err = s.svc.Cancel(bg, last.ID, 0)
	must(t, err)
	_, err = s.svc.MakeOffers(bg, last.SlotID)
	must(t, err)
	do(t, ctx, chromedp.Navigate(s.url+"/waitlist"), chromedp.WaitVisible(chromedp.CSS(".countdown")))
	screenshot(t, ctx, "waitlist-offer")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`form[action$="/accept"] button`)),
		chromedp.WaitVisible(chromedp.CSS("[data-status]")),
	)
	if st := text(t, ctx, "[data-status]"); st != "BOOKED" {
		t.Fatalf("accepted offer is %q", st)
	}
}
