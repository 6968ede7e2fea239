package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A new visitor goes from the home page to a time, creates an account
// from the sign-in page's link, comes back to that time's review line
// signed in, and books it.
func TestE2ENewPatientSignsUpAndBooks(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)
	target := s.slots[2]

	s.openDay(t, ctx)
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-slot="%d"] a.time`, target.ID))),
		chromedp.WaitVisible(chromedp.CSS("#phone")),
		chromedp.Click(chromedp.CSS(`a[data-signup]`)),
		chromedp.WaitVisible(chromedp.CSS("#address")),
	)
	screenshot(t, ctx, "signup")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#address"), "06 77 66 55 44"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#name")),
	)
	code := s.codes.code("+33677665544")
	if len(code) != 6 {
		t.Fatalf("no sign-up code was sent (got %q)", code)
	}
	screenshot(t, ctx, "signup-details")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#code"), code),
		chromedp.SendKeys(chromedp.CSS("#name"), "Maëlle Browser"),
		chromedp.SetValue(chromedp.CSS("#birthDate"), "1992-03-04"),
		chromedp.SetValue(chromedp.CSS("#sex"), "female"),
		chromedp.Click(chromedp.CSS(`form[action="/signup/create"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#review[data-review="%d"]`, target.ID))),
	)
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`#review button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".ticket")),
	)
	if st := text(t, ctx, "[data-status]"); st != "BOOKED" {
		t.Fatalf("status %q", st)
	}
	p, err := s.store.PatientByPhone(context.Background(), "+33677665544")
	must(t, err)
	if p.Name != "Maëlle Browser" || p.BirthDate != "1992-03-04" || p.Sex != "female" {
		t.Fatalf("the new patient %+v", p)
	}
	if sl, err := s.store.GetSlot(context.Background(), target.ID); err != nil || sl.BookedCount != 1 {
		t.Fatalf("the booked slot %+v (%v)", sl, err)
	}
	if !strings.Contains(location(t, ctx), "/appointments/") {
		t.Fatalf("after booking at %s", location(t, ctx))
	}
}
