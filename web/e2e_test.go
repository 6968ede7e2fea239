package web

// End-to-end tests: a real server (the JSON API and the web UI on one
// embedded SQLite store) driven by Debian's Chromium through chromedp.
//
// Without Chromium they skip with a message, except under CI=true where they
// must run. Screenshots of the main pages at desktop and phone width go to a
// temp dir, or to docs/screenshots with SLOTD_SCREENSHOTS=1.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/schedule"
)

// must fails the test at once on an error.
var must = testkit.NoError

// chromium finds the browser, or skips (fails under CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("SLOTD_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	msg := "Chromium not found (/usr/bin/chromium): install Debian's chromium package (apt-get install -y chromium) to run the browser tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser starts a headless Chromium for the test and returns its context.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	// Start the browser now, so that new browser contexts can be made.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// tab opens an isolated browser context (its own cookies) with a deadline.
func tab(t *testing.T, b context.Context) context.Context {
	t.Helper()
	return tabFor(t, b, 90*time.Second)
}

// tabFor is tab with a deadline of d, for a test that walks many pages.
func tabFor(t *testing.T, b context.Context, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b, chromedp.WithNewBrowserContext())
	ctx, cancel2 := context.WithTimeout(ctx, d)
	t.Cleanup(func() { cancel2(); cancel() })
	return ctx
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		loc, _ := chromedp.Run(ctx, chromedp.Location())
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main") ? document.querySelector("main").innerText : ""`))
		t.Fatalf("browser: %v\nat %s\npage: %.800s", err, loc, html)
	}
}

// press clicks css, a button whose form posts and answers with a page
// reporting what was done ([data-done]), and waits for that page. An
// earlier report is removed first: otherwise the wait could end on the
// page being left, and the next step act on nodes about to go.
func press(ctx context.Context, css string) error {
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelectorAll("[data-done]").forEach(e => e.remove()); true`)); err != nil {
		return err
	}
	return chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css)), chromedp.WaitVisible(chromedp.CSS("[data-done]")))
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

func location(t *testing.T, ctx context.Context) string {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Location())
	must(t, err)
	return l
}

// screenshot saves the current page at desktop and phone width, and checks
// that the phone layout does not scroll sideways.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := t.TempDir()
	if os.Getenv("SLOTD_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "docs", "screenshots")
		must(t, os.MkdirAll(dir, 0o755))
	}
	for _, v := range []struct {
		suffix string
		w, h   int64
	}{{"desktop", 1280, 900}, {"phone", 360, 780}} {
		do(t, ctx, chromedp.EmulateViewport(v.w, v.h), chromedp.Sleep(150*time.Millisecond))
		if v.suffix == "phone" {
			over, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
			must(t, err)
			if over {
				t.Errorf("%s: the page scrolls sideways at %d px", name, v.w)
			}
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, name+"-"+v.suffix+".png"), png, 0o644))
	}
	do(t, ctx, chromedp.EmulateViewport(1280, 900))
}

// signIn signs a patient in through the phone-and-code pages.
func (s *site) signIn(t *testing.T, ctx context.Context, p booking.Patient, next string, shots bool) {
	t.Helper()
	u := s.url + "/signin"
	if next != "" {
		u += "?next=" + next
	}
	do(t, ctx, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("#phone")))
	if shots {
		screenshot(t, ctx, "signin")
	}
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#phone"), p.Phone),
		chromedp.Click(chromedp.CSS(`form[action="/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#code")),
	)
	code := s.codes.code(p.Phone)
	if len(code) != 6 {
		t.Fatalf("no sign-in code was sent (got %q)", code)
	}
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#code"), code),
		chromedp.Click(chromedp.CSS(`form[action="/signin/verify"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/signout"]`)),
	)
}

// openDay goes department → doctor → tomorrow through the links.
func (s *site) openDay(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx,
		chromedp.Navigate(s.url+"/"),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/departments/%d"]`, s.dept.ID))),
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/doctors/%d"]`, s.doctor.ID))),
		chromedp.WaitVisible(chromedp.CSS("table.calendar")),
	)
	day := fmt.Sprintf(`a[data-date="%s"]`, s.tomorrow)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.querySelector(%q)`, day)))
	must(t, err)
	if !found { // tomorrow is in next month
		do(t, ctx, chromedp.Click(chromedp.CSS(`a[rel=next]`)), chromedp.WaitVisible(chromedp.CSS("table.calendar")))
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(day)), chromedp.WaitVisible(chromedp.CSS("ul.slots")))
}

func TestE2EPatientBooksSeesAndCancels(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)
	p := s.patients[0]

	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS("ul.grid")))
	screenshot(t, ctx, "home")
	s.signIn(t, ctx, p, "", true)
	if !strings.Contains(location(t, ctx), "/appointments") {
		t.Fatalf("after sign-in at %s", location(t, ctx))
	}

	s.openDay(t, ctx)
	// The full 09:00 slot is greyed, struck through and has no button; the others are Book buttons.
	full := fmt.Sprintf(`li.slot.full[data-slot="%d"]`, s.slots[0].ID)
	do(t, ctx, chromedp.WaitVisible(chromedp.CSS(full)))
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('%s button').length`, full))); err != nil || n != 0 {
		t.Fatalf("the full slot has %d buttons (%v)", n, err)
	}
	screenshot(t, ctx, "day")
	dayURL := location(t, ctx)
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href^="/doctors/"][href*="month="]`)), chromedp.WaitVisible(chromedp.CSS("table.calendar")))
	screenshot(t, ctx, "calendar")
	do(t, ctx, chromedp.Navigate(dayURL), chromedp.WaitVisible(chromedp.CSS("ul.slots")))

	target := s.slots[1]
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`li[data-slot="%d"] button[type=submit]`, target.ID))),
		chromedp.WaitVisible(chromedp.CSS(".ticket")),
	)
	// A one-place slot has no queue number to show ("No. 1" says nothing).
	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector(".queue")`)); err != nil || shown {
		t.Fatalf("a one-place slot shows a queue number (%v)", err)
	}
	if st := text(t, ctx, "[data-status]"); st != "BOOKED" {
		t.Fatalf("status %q", st)
	}
	// The confirmation names the date, start–end, zone, doctor, department, place and offers the .ics.
	facts := text(t, ctx, "dl.facts")
	for _, want := range []string{"09:30–10:00", "(Europe/Paris)", "Dr Camille Martin", "Cardiology", "12 rue de la Paix"} {
		if !strings.Contains(facts, want) {
			t.Errorf("confirmation lacks %q: %q", want, facts)
		}
	}
	ics, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(document.querySelector('a[href$="/ics"]').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	must(t, err)
	if !strings.Contains(ics, "BEGIN:VCALENDAR") || !strings.Contains(ics, "BEGIN:VEVENT") {
		t.Errorf("the .ics download is %.200q", ics)
	}
	screenshot(t, ctx, "confirmation")

	// My appointments lists it as a card; cancel it from there, through the confirmation step.
	do(t, ctx, chromedp.Click(chromedp.CSS(`a[href="/appointments"]`)), chromedp.WaitVisible(chromedp.CSS("ul.cards")))
	row := `li[data-appointment]`
	if got := text(t, ctx, row); !strings.Contains(got, "BOOKED") || !strings.Contains(got, "Dr Camille Martin") {
		t.Fatalf("my appointments row %q", got)
	}
	screenshot(t, ctx, "appointments")
	do(t, ctx, chromedp.Click(chromedp.CSS(row+` a.danger`)), chromedp.WaitVisible(chromedp.CSS(`form[action$="/cancel"] button.danger`)))
	if sl, err := s.store.GetSlot(context.Background(), target.ID); err != nil || sl.BookedCount != 1 {
		t.Fatalf("the confirmation step cancelled already: %+v %v", sl, err)
	}
	screenshot(t, ctx, "cancel")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`form[action$="/cancel"] button.danger`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if got := text(t, ctx, row); !strings.Contains(got, "CANCELLED") {
		t.Fatalf("after cancel the row says %q", got)
	}
	sl, err := s.store.GetSlot(context.Background(), target.ID)
	must(t, err)
	if sl.BookedCount != 0 {
		t.Fatalf("the cancelled place was not released: booked %d", sl.BookedCount)
	}
}

func TestE2ETwoBrowsersRaceForTheLastPlace(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	last := s.slots[3]
	ctxs := []context.Context{tab(t, b), tab(t, b)}
	for i, ctx := range ctxs {
		s.signIn(t, ctx, s.patients[i], "", false)
		s.openDay(t, ctx)
	}
	// Both pages show the last place bookable; press Book in both at once.
	button := fmt.Sprintf(`li[data-slot="%d"] button[type=submit]`, last.ID)
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, len(ctxs))
	for i, ctx := range ctxs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button)),
				chromedp.WaitVisible(chromedp.CSS(".ticket, .problem")))
		}()
	}
	close(start)
	wg.Wait()
	must(t, errors.Join(errs...))
	winners, losers := 0, 0
	for i, ctx := range ctxs {
		won, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector(".ticket")`))
		must(t, err)
		if won {
			winners++
			if st := text(t, ctx, "[data-status]"); st != "BOOKED" {
				t.Errorf("winner %d sees %q", i, st)
			}
			continue
		}
		losers++
		code, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".problem").dataset.code`))
		must(t, err)
		msg := text(t, ctx, ".problem")
		if code != string(booking.CodeSlotFull) || !strings.Contains(msg, "fully booked") {
			t.Errorf("loser %d sees %s: %q", i, code, msg)
		}
		screenshot(t, ctx, "slot-full")
	}
	if winners != 1 || losers != 1 {
		t.Fatalf("%d winners and %d losers, want exactly one of each", winners, losers)
	}
	sl, err := s.store.GetSlot(context.Background(), last.ID)
	must(t, err)
	if sl.BookedCount != 1 {
		t.Fatalf("slot booked %d of %d", sl.BookedCount, sl.Capacity)
	}
}

func TestE2EStaffCreateScheduleAndSeeSlots(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)

	do(t, ctx, chromedp.Navigate(s.url+"/staff"), chromedp.WaitVisible(chromedp.CSS("#password")))
	screenshot(t, ctx, "staff-signin")
	do(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#name"), "admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), staffPassword),
		chromedp.Click(chromedp.CSS(`form[action="/staff/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#h-docs")),
	)
	screenshot(t, ctx, "staff-catalog")

	// Open the doctor without a schedule and create one for every day.
	do(t, ctx,
		chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/staff/doctors/%d"]`, s.empty.ID))),
		chromedp.WaitVisible(chromedp.CSS("#schedule-form")),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('#schedule-form input[name=weekday]').forEach(c => c.checked = true)`),
		chromedp.SetValue(chromedp.CSS("#s-cap"), "3"),
		chromedp.SetValue(chromedp.CSS("#s-fee"), "12.345"), // more decimals than EUR has
		chromedp.Click(chromedp.CSS(`#schedule-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#s-fee[aria-invalid="true"]`)),
	)
	// The refused form keeps what was typed and names the field.
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#s-cap').value + ' ' + document.querySelector('#s-fee').value + ' ' + document.querySelectorAll('#schedule-form input[name=weekday]:checked').length`))
	must(t, err)
	if kept != "3 12.345 7" {
		t.Fatalf("the refused form kept %q, want capacity 3, fee 12.345 and 7 days", kept)
	}
	if p := text(t, ctx, ".problem"); !strings.Contains(p, "EUR") {
		t.Errorf("the problem does not say what the fee needs: %q", p)
	}
	do(t, ctx,
		chromedp.SetValue(chromedp.CSS("#s-fee"), "0"),
		chromedp.Click(chromedp.CSS(`#schedule-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	notice := text(t, ctx, ".notice")
	if !strings.Contains(notice, "slots generated") || strings.Contains(notice, ": 0 slots") {
		t.Fatalf("notice %q", notice)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table[data-slots] tbody tr").length`))
	must(t, err)
	if n != 16 { // 08:00–12:00 in 15-minute slots
		t.Fatalf("the day shows %d slots, want 16", n)
	}
	if got := text(t, ctx, "table[data-slots] tbody tr"); !strings.Contains(got, "08:00–08:15") || !strings.Contains(got, "0 / 3") {
		t.Fatalf("first slot row %q", got)
	}
	screenshot(t, ctx, "staff-doctor")

	// The doctor's day view of tomorrow for the doctor with a booking.
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/staff/doctors/%d/days/%s", s.url, s.doctor.ID, s.tomorrow)),
		chromedp.WaitVisible(chromedp.CSS("[data-appointment]")))
	if got := text(t, ctx, "[data-appointment]"); !strings.Contains(got, "Léa Dubois") {
		t.Fatalf("day view shows %q", got)
	}
	screenshot(t, ctx, "staff-day")
	// Tomorrow's appointment has not started: nothing offers to mark it.
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-appointment] button[value=COMPLETED], [data-appointment] button[value=NO_SHOW]").length`))
	must(t, err)
	if marks != 0 {
		t.Fatalf("tomorrow's appointment offers %d buttons to mark it", marks)
	}
	if a, err := s.store.FindByKey(context.Background(), s.patients[2].ID, "seed"); err != nil || a.Status != booking.StatusBooked {
		t.Fatalf("the appointment became %s (%v) before its start", a.Status, err)
	}

	// A small rush for the dashboard: bookings, retries and refusals.
	bg := context.Background()
	for i, p := range s.patients[:2] {
		for try := 0; try < 2; try++ { // the second is a retry with the same key
			r := s.svc.Book(bg, p.ID, s.slots[4+i].ID, fmt.Sprintf("rush-%d", i))
			must(t, r.Err)
		}
	}
	for i, p := range s.patients[:2] {
		for j := 0; j < 3+2*i; j++ { // the other's slot, now full
			r := s.svc.Book(bg, p.ID, s.slots[5-i].ID, fmt.Sprintf("late-%d-%d", i, j))
			if booking.ErrorCode(r.Err) != booking.CodeSlotFull {
				t.Fatalf("booking a full slot: %v", r.Err)
			}
		}
	}
	do(t, ctx, chromedp.Navigate(s.url+"/staff/dashboard"), chromedp.WaitVisible(chromedp.CSS(".charts")))
	if got := text(t, ctx, `[data-kpi="created"]`); got != "2" {
		t.Fatalf("dashboard counts %q bookings, want 2", got)
	}
	rej, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#c-rej + ul")))
	must(t, err)
	if got := rej; !strings.Contains(got, "slot-full") {
		t.Fatalf("rejections chart shows %q", got)
	}
	screenshot(t, ctx, "staff-dashboard")
}

// The clinic page: close the whole clinic tomorrow (the booked appointment
// is cancelled), see the closure, lift it (the slots reopen), and save
// the booking policy.
func TestE2EStaffClosesAndReopensTheClinic(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)
	do(t, ctx, chromedp.Navigate(s.url+"/staff/clinic"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#name"), "admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), staffPassword),
		chromedp.Click(chromedp.CSS(`form[action="/staff/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#closure-form")),
	)
	do(t, ctx,
		chromedp.SetValue(chromedp.CSS("#c-from"), s.tomorrow.String()+"T00:00"),
		chromedp.SetValue(chromedp.CSS("#c-to"), s.tomorrow.AddDays(1).String()+"T00:00"),
		chromedp.SendKeys(chromedp.CSS("#c-reason"), "Public holiday"),
		chromedp.Click(chromedp.CSS(`#closure-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "6 slots closed") {
		t.Fatalf("notice %q", got)
	}
	if got := text(t, ctx, "[data-closure]"); !strings.Contains(got, "Public holiday") || !strings.Contains(got, "Lift") {
		t.Fatalf("closure row %q", got)
	}
	a, err := s.store.FindByKey(context.Background(), s.patients[2].ID, "seed")
	must(t, err)
	if a.Status != booking.StatusCancelled {
		t.Fatalf("the closed day's appointment is %s", a.Status)
	}
	screenshot(t, ctx, "staff-clinic")
	do(t, ctx,
		chromedp.Click(chromedp.CSS(`[data-closure] button[type=submit]`)),
		chromedp.WaitVisible(`//p[@class="notice" and starts-with(., "Lifted")]`),
	)
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "6 slots reopened") {
		t.Fatalf("notice after lifting %q", got)
	}
	sl, err := s.store.GetSlot(context.Background(), s.slots[1].ID)
	must(t, err)
	if sl.Status != booking.SlotOpen {
		t.Fatalf("a lifted closure's slot is %s", sl.Status)
	}
	do(t, ctx,
		chromedp.SetValue(chromedp.CSS("#p-cut"), "24"),
		chromedp.Click(chromedp.CSS(`#policy-form button[type=submit]`)),
		chromedp.WaitVisible(`//p[@class="notice" and contains(., "policy saved")]`),
	)
	if got := text(t, ctx, ".notice"); !strings.Contains(got, "policy saved") {
		t.Fatalf("notice after saving the policy %q", got)
	}
	p, err := s.svc.ClinicPolicy(context.Background())
	must(t, err)
	if p.CancelCutoffHours != 24 || p.MaxActive != booking.DefaultMaxActive {
		t.Fatalf("policy %+v", p)
	}
}

// Editing on the staff pages: a doctor deactivated through its form leaves
// the patients' listing, stays in the staff catalog marked deactivated and
// is reactivated through its Edit link there; a patient's new phone is stored
// in E.164 and a deactivated patient books no more; a schedule ended on a
// day loses its free slots after it.
func TestE2EStaffEdits(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)
	bg := context.Background()
	do(t, ctx, chromedp.Navigate(s.url+fmt.Sprintf("/staff/doctors/%d/edit", s.empty.ID)), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#name"), "admin"),
		chromedp.SendKeys(chromedp.CSS("#password"), staffPassword),
		chromedp.Click(chromedp.CSS(`form[action="/staff/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#edit-form")),
		chromedp.Click(chromedp.CSS("#e-active")),
		chromedp.Click(chromedp.CSS(`#edit-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if d, err := s.store.GetDoctor(bg, s.empty.ID); err != nil || d.Active {
		t.Fatalf("doctor after deactivation: %+v %v", d, err)
	}
	// The patients' listing hides it; the staff catalog keeps it, marked,
	// with the Edit link that reactivates it.
	deptPage := s.url + fmt.Sprintf("/departments/%d", s.empty.DepartmentID)
	do(t, ctx, chromedp.Navigate(deptPage), chromedp.WaitVisible(chromedp.CSS("main")))
	if got := text(t, ctx, "main"); strings.Contains(got, s.empty.Name) {
		t.Fatalf("the patients' listing after deactivating %s: %q", s.empty.Name, got)
	}
	do(t, ctx, chromedp.Navigate(s.url+"/staff"), chromedp.WaitVisible(chromedp.CSS("#h-docs")))
	if got := text(t, ctx, "main"); !strings.Contains(got, s.empty.Name+" (deactivated)") || strings.Contains(got, s.doctor.Name+" (deactivated)") {
		t.Fatalf("the catalog after deactivating %s: %q", s.empty.Name, got)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[href="/staff/doctors/%d/edit"]`, s.empty.ID))),
		chromedp.WaitVisible(chromedp.CSS("#edit-form")),
		chromedp.Click(chromedp.CSS("#e-active")),
		chromedp.Click(chromedp.CSS(`#edit-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if d, err := s.store.GetDoctor(bg, s.empty.ID); err != nil || !d.Active {
		t.Fatalf("doctor after reactivation: %+v %v", d, err)
	}
	do(t, ctx, chromedp.Navigate(deptPage), chromedp.WaitVisible(chromedp.CSS("main")))
	if got := text(t, ctx, "main"); !strings.Contains(got, s.empty.Name) {
		t.Fatalf("the patients' listing after reactivating %s: %q", s.empty.Name, got)
	}

	p := s.patients[0]
	do(t, ctx, chromedp.Navigate(s.url+fmt.Sprintf("/staff/patients/%d/edit", p.ID)), chromedp.WaitVisible(chromedp.CSS("#edit-form")),
		chromedp.SetValue(chromedp.CSS("#e-phone"), "06 12 34 56 99"),
		chromedp.Click(chromedp.CSS("#e-active")),
		chromedp.Click(chromedp.CSS(`#edit-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	got, err := s.store.GetPatient(bg, p.ID)
	must(t, err)
	if got.Phone != "+33612345699" || got.Active {
		t.Fatalf("patient after editing: phone %q active %v", got.Phone, got.Active)
	}
	if r := s.svc.Book(bg, p.ID, s.slots[4].ID, "after-deactivation"); booking.ErrorCode(r.Err) != booking.CodeBookingBlocked {
		t.Fatalf("a deactivated patient's booking: %v", r.Err)
	}

	sc, _, err := s.svc.CreateSchedule(bg, booking.Schedule{DoctorID: s.doctor.ID, Weekdays: []time.Weekday{0, 1, 2, 3, 4, 5, 6},
		StartTime: "14:00", EndTime: "15:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	end := s.tomorrow.AddDays(1)
	do(t, ctx, chromedp.Navigate(s.url+fmt.Sprintf("/staff/doctors/%d", s.doctor.ID)), chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf("#end-%d", sc.ID))),
		chromedp.SetValue(chromedp.CSS(fmt.Sprintf("#end-date-%d", sc.ID)), end.String()),
		chromedp.Click(chromedp.CSS(fmt.Sprintf("#end-%d button[type=submit]", sc.ID))),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	_, after := schedule.DayBounds(end, s.loc)
	sls, err := s.store.ListSlots(bg, s.doctor.ID, after, after.Add(10*24*time.Hour))
	must(t, err)
	for _, sl := range sls {
		if sl.ScheduleID == sc.ID {
			t.Fatalf("slot %d at %s of the schedule ended on %s", sl.ID, sl.StartAt, end)
		}
	}
}
