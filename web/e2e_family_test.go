package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// TestE2ENewPatientBooksForTheirChild: in each language, a new visitor
// goes from the home page to a time, signs up from the sign-in page, adds
// a child on the People page, books a time for the child ("Who is this
// for?") and reads the confirmed appointment "for" the child. axe finds
// nothing serious on the pages of the path, at desktop and phone width;
// with SLOTD_SCREENSHOTS=1 the phone-width pages go to docs/screenshots.
func TestE2ENewPatientBooksForTheirChild(t *testing.T) {
	axe := axeSource(t)
	b := browser(t)
	s := newSite(t)
	children := map[string]string{"en": "Sam", "fr": "Léo", "vi": "Lan", "zh-Hans": "小明"}
	for i, l := range i18n.Languages {
		pr := i18n.New(l.Tag)
		ctx := tabFor(t, b, 3*time.Minute)
		slot := s.slots[1+i] // one free place each
		phone := fmt.Sprintf("+3367700000%d", i)
		child := children[l.Tag]
		check := func(name string) {
			t.Helper()
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true"))
			must(t, err)
			for _, w := range [][2]int64{{1280, 900}, {390, 844}} {
				do(t, ctx, chromedp.EmulateViewport(w[0], w[1]))
				for _, v := range runAxe(t, ctx) {
					t.Errorf("%s in %s at %dpx: %s %s: %s %+v", name, l.Tag, w[0], v.Impact, v.ID, v.Help, v.Nodes)
				}
			}
			phoneShot(t, ctx, "family-"+l.Tag+"-"+name)
		}

		do(t, ctx, chromedp.Navigate(s.url+"/lang?to="+url.QueryEscape(l.Tag)+"&next=/"), chromedp.WaitReady(chromedp.CSS("main")))
		check("home")
		s.openDay(t, ctx)
		do(t, ctx,
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-slot="%d"] a.time`, slot.ID))),
			chromedp.WaitVisible(chromedp.CSS("#phone")),
			chromedp.Click(chromedp.CSS(`a[data-signup]`)),
			chromedp.WaitVisible(chromedp.CSS("#address")),
			chromedp.SendKeys(chromedp.CSS("#address"), phone),
			chromedp.Click(chromedp.CSS(`form[action="/signup"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#name")),
		)
		check("signup")
		code := s.codes.code(phone)
		if len(code) != 6 {
			t.Fatalf("%s: no sign-up code was sent (got %q)", l.Tag, code)
		}
		do(t, ctx,
			chromedp.SendKeys(chromedp.CSS("#code"), code),
			chromedp.SendKeys(chromedp.CSS("#name"), "Parent "+l.Tag),
			chromedp.Click(chromedp.CSS(`form[action="/signup/create"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#review[data-review="%d"]`, slot.ID))),
		)

		// The People page: add the child.
		do(t, ctx,
			chromedp.Click(chromedp.CSS(`nav a[href="/people"]`)),
			chromedp.WaitVisible(chromedp.CSS("#add-person")),
			chromedp.SendKeys(chromedp.CSS("#add-person #name"), child),
			chromedp.SetValue(chromedp.CSS("#add-person #birthDate"), "2018-05-06"),
			chromedp.SetValue(chromedp.CSS("#add-person #relation"), booking.RelationChild),
			chromedp.Click(chromedp.CSS("#consent")),
			chromedp.Click(chromedp.CSS(`#add-person button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`li[data-person]:nth-of-type(2)`)),
		)
		check("people")
		parent, err := s.store.PatientByPhone(context.Background(), phone)
		must(t, err)
		ps, err := s.svc.People(context.Background(), parent.ID, booking.Page{})
		must(t, err)
		if len(ps) != 2 || ps[1].Name != child || ps[1].ManagerID != parent.ID {
			t.Fatalf("%s: the account's people %+v", l.Tag, ps)
		}
		kid := ps[1]

		// Back to the day: the time leads to the review, which asks whom for.
		s.openDay(t, ctx)
		do(t, ctx,
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-slot="%d"] a.time`, slot.ID))),
			chromedp.WaitVisible(chromedp.CSS("#who")),
			chromedp.Click(chromedp.CSS(fmt.Sprintf("#for%d", kid.ID))),
		)
		check("who")
		do(t, ctx,
			chromedp.Click(chromedp.CSS(`#review button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(".ticket")),
		)
		if st := text(t, ctx, "[data-status]"); st != pr.T(string(booking.StatusBooked)) {
			t.Fatalf("%s: status %q", l.Tag, st)
		}
		if got, want := text(t, ctx, "[data-for]"), pr.T("For %s", child); got != want {
			t.Fatalf("%s: the confirmation says %q, want %q", l.Tag, got, want)
		}
		check("booked")
		as, err := s.svc.Appointments(context.Background(), kid.ID, "", booking.Page{})
		must(t, err)
		if len(as) != 1 || as[0].SlotID != slot.ID || as[0].Status != booking.StatusBooked {
			t.Fatalf("%s: the child's appointments %+v", l.Tag, as)
		}
	}
}

// phoneShot saves the page at phone width (390 px) as docs/screenshots/
// name.png with SLOTD_SCREENSHOTS=1 (else in a temporary directory), and
// checks that it does not scroll sideways there.
func phoneShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := t.TempDir()
	if os.Getenv("SLOTD_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "docs", "screenshots")
		must(t, os.MkdirAll(dir, 0o755))
	}
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Sleep(150*time.Millisecond))
	over, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	must(t, err)
	if over {
		t.Errorf("%s: the page scrolls sideways at 390 px", name)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
	do(t, ctx, chromedp.EmulateViewport(1280, 900))
}
