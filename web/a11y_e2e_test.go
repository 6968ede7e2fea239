package web

// Accessibility and languages in the browser: axe-core on every page in
// every language at desktop and phone width, keyboard-only booking, and the
// language choice over HTTP.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
)

// axeSource is axe-core's script: $SLOTD_AXE (.ci/run installs it from
// npm), else the cache .ci/run uses. Without it the test skips, except
// under CI=true where it fails.
func axeSource(t *testing.T) string {
	t.Helper()
	paths := []string{os.Getenv("SLOTD_AXE")}
	if c, err := os.UserCacheDir(); err == nil {
		paths = append(paths, filepath.Join(c, "slotd", "npm", "node_modules", "axe-core", "axe.min.js"))
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	msg := "axe-core not found: run .ci/run, or npm install --prefix ~/.cache/slotd/npm axe-core and set SLOTD_AXE"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// axeViolation is one serious or critical finding.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
		HTML   string   `json:"html"`
	} `json:"nodes"`
}

// runAxe runs axe on the current page and returns its serious and critical
// violations. axe is injected once per page load.
const axeRun = `(async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return JSON.stringify(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(n => ({target: n.target, html: n.html.slice(0, 160)}))})));
})()`

func runAxe(t *testing.T, ctx context.Context) []axeViolation {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	var vs []axeViolation
	must(t, json.Unmarshal([]byte(out), &vs))
	return vs
}

// TestE2EAxeEveryPageEveryLanguage opens every page as a patient, a
// signed-out visitor and staff, in every language, and runs axe at desktop
// and phone width: any serious or critical violation fails. One browser and
// one tab per role; axe is injected once per page and run at both widths
// (media queries apply without a reload), and the language is switched by
// the page's own switch (a cookie), so the cost is one load per page and
// language.
func TestE2EAxeEveryPageEveryLanguage(t *testing.T) {
	axe := axeSource(t)
	b := browser(t)
	s := newSite(t)
	shots := os.Getenv("SLOTD_SCREENSHOTS") == "1"

	// A booked appointment to show and a held one (a fee) for the pay step.
	p := s.patients[0]
	booked := s.svc.Book(booking.WithActor(context.Background(), booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, s.slots[2].ID, "axe-booked")
	must(t, booked.Err)

	// 184 axe runs: minutes under -race on a busy machine (a liveness
	// bound, not a speed assertion).
	const walk = 15 * time.Minute
	patient := tabFor(t, b, walk)
	s.signIn(t, patient, p, "", false)
	visitor := tabFor(t, b, walk)
	staff := tabFor(t, b, walk)
	do(t, staff, chromedp.Navigate(s.url+"/staff/signin"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#name"), "admin"), chromedp.SendKeys(chromedp.CSS("#password"), staffPassword),
		chromedp.Click(chromedp.CSS(`form[action="/staff/signin"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#h-docs")))
	// A staff account of role doctor, for the doctor's own day.
	hash, err := accounts.HashPassword(staffPassword)
	must(t, err)
	must(t, s.store.SetStaffPassword(context.Background(), "drmartin", hash, time.Now()))
	must(t, s.store.SetStaffDoctor(context.Background(), "drmartin", s.doctor.ID))
	doctor := tabFor(t, b, walk)
	s.staffSignIn(t, doctor, "drmartin", `form[action="/signout"]`)

	appt := fmt.Sprintf("/appointments/%d", booked.Appointment.ID)
	offerDay := waitlistWithOffer(t, s, p)
	_, err = s.store.RecordMessages(context.Background(), []booking.MessageAttempt{{Key: "a11y", PatientID: p.ID, Kind: "reminder", Channel: "sms",
		State: booking.MessageFailed, Reason: "21211: The 'To' number +33******78 is not a valid phone number.", At: time.Now()}})
	must(t, err)
	pages := []struct {
		ctx  context.Context
		name string
		path string
		shot bool // a main page: screenshot per language
	}{
		{patient, "home", "/", true},
		{patient, "department", fmt.Sprintf("/departments/%d", s.dept.ID), false},
		{patient, "calendar", fmt.Sprintf("/doctors/%d", s.doctor.ID), true},
		{patient, "day", fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow), true},
		{patient, "confirmation", appt + "?booked=1", true},
		{patient, "appointments", "/appointments", true},
		{patient, "cancel", appt + "/cancel", true},
		{patient, "calendar-link", "/calendar", false},
		{patient, "error", "/no-such-page", false},
		{visitor, "signin", "/signin", true},
		{visitor, "signup", "/signup", false},
		{visitor, "day-signed-out", fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow), false},
		{visitor, "staff-signin", "/staff/signin", false},
		{staff, "staff-catalog", "/staff", false},
		{staff, "staff-patients", "/staff/patients", false},
		{staff, "staff-erase", fmt.Sprintf("/staff/patients/%d/erase", s.patients[len(s.patients)-1].ID), true},
		{staff, "staff-doctor", fmt.Sprintf("/staff/doctors/%d?date=%s", s.doctor.ID, s.tomorrow), true},
		{staff, "staff-day", fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow), false},
		{staff, "staff-dashboard", "/staff/dashboard", true},
		{staff, "staff-day-print", fmt.Sprintf("/staff/doctors/%d/days/%s?print=1", s.doctor.ID, s.tomorrow), true},
		{staff, "staff-audit", "/staff/audit", true},
		{staff, "staff-import", "/staff/import", true},
		{staff, "staff-reconciliation", "/staff/reconciliation", true},
		{staff, "staff-clinic", "/staff/clinic", true},
		{staff, "kiosk", "/kiosk", false},
		{staff, "staff-edit-doctor", fmt.Sprintf("/staff/doctors/%d/edit", s.doctor.ID), true},
		{staff, "staff-edit-patient", fmt.Sprintf("/staff/patients/%d/edit", p.ID), false},
		{staff, "staff-messages", fmt.Sprintf("/staff/patients/%d/messages", p.ID), false},
		{staff, "staff-patient", fmt.Sprintf("/staff/patients/%d", p.ID), false},
		{staff, "staff-edit-department", fmt.Sprintf("/staff/departments/%d/edit", s.dept.ID), false},
		{doctor, "doctor-day", fmt.Sprintf("/doctor/days/%s", s.tomorrow), true},
		{patient, "history", "/history", true},
		{patient, "reschedule", appt + "/reschedule", true},
		{patient, "day-waitlist", fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, offerDay), true},
		{patient, "waitlist", "/waitlist", true},
		{staff, "staff-day-offers", fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, offerDay), true},
	}
	dir := filepath.Join("..", "docs", "screenshots")
	if shots {
		must(t, os.MkdirAll(dir, 0o755))
	}
	runs := 0
	for _, l := range i18n.Languages {
		for _, ctx := range []context.Context{visitor, staff, doctor} {
			do(t, ctx, chromedp.Navigate(s.url+"/lang?to="+url.QueryEscape(l.Tag)+"&next=/"), chromedp.WaitReady(chromedp.CSS("body")))
		}
		// The patient switches through the language form (a POST), which
		// also keeps the choice for the notifications.
		do(t, patient, chromedp.Navigate(s.url+"/"), chromedp.WaitReady(chromedp.CSS("main")))
		if cur, err := chromedp.Run(patient, chromedp.Evaluate[string](`document.documentElement.lang`)); err != nil || cur != l.Tag {
			do(t, patient, chromedp.Click(chromedp.CSS(`form[action="/lang"] button[value="`+l.Tag+`"]`)),
				chromedp.WaitVisible(chromedp.CSS(`.langs [aria-current][lang="`+l.Tag+`"]`)))
		}
		for _, pg := range pages {
			do(t, pg.ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.url+pg.path), chromedp.WaitReady(chromedp.CSS("main")))
			lang, err := chromedp.Run(pg.ctx, chromedp.Evaluate[string](`document.documentElement.lang`))
			must(t, err)
			if lang != l.Tag {
				t.Errorf("%s in %s: <html lang=%q>", pg.name, l.Tag, lang)
			}
			_, err = chromedp.Run(pg.ctx, chromedp.Evaluate[bool](axe+";true"))
			must(t, err)
			for _, w := range []struct {
				name string
				w, h int64
			}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
				do(t, pg.ctx, chromedp.EmulateViewport(w.w, w.h))
				runs++
				for _, v := range runAxe(t, pg.ctx) {
					t.Errorf("%s (%s) in %s at %s: %s %s: %s %+v", pg.name, pg.path, l.Tag, w.name, v.Impact, v.ID, v.Help, v.Nodes)
				}
				if w.name == "phone" {
					over, err := chromedp.Run(pg.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
					must(t, err)
					if over {
						t.Errorf("%s in %s scrolls sideways at %d px", pg.name, l.Tag, w.w)
					}
				}
				if shots && pg.shot && (w.name == "phone" || pg.name == "day" || pg.name == "confirmation") {
					png, err := chromedp.Run(pg.ctx, chromedp.FullScreenshot(100))
					must(t, err)
					must(t, os.WriteFile(filepath.Join(dir, l.Tag+"-"+pg.name+"-"+w.name+".png"), png, 0o644))
				}
			}
		}
		// The import's report of refused lines, in this language.
		do(t, staff, chromedp.EmulateViewport(390, 844), chromedp.Navigate(s.url+"/staff/import"), chromedp.WaitVisible(chromedp.CSS("#csv")),
			chromedp.SetValue(chromedp.CSS("#csv"), "patient,phone,email\nAnne,+33600000010,not-an-address\nBen,12,\n=cmd,+33600000011,\n"),
			chromedp.Click(chromedp.CSS(`form[action="/staff/import"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#import-report")))
		_, err = chromedp.Run(staff, chromedp.Evaluate[bool](axe+";true"))
		must(t, err)
		runs++
		for _, v := range runAxe(t, staff) {
			t.Errorf("import report in %s at phone: %s %s: %s %+v", l.Tag, v.Impact, v.ID, v.Help, v.Nodes)
		}
		if shots {
			png, err := chromedp.Run(staff, chromedp.FullScreenshot(100))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, l.Tag+"-staff-import-report-phone.png"), png, 0o644))
		}
	}
	// The patient's last choice is kept for their notifications.
	if got, err := s.store.GetPatient(context.Background(), p.ID); err != nil || got.Language != i18n.Languages[len(i18n.Languages)-1].Tag {
		t.Errorf("the patient's language is %q (%v) after switching to %s", got.Language, err, i18n.Languages[len(i18n.Languages)-1].Tag)
	}
	// A link (GET) changes the pages' language only, never the stored one:
	// a link followed from anywhere must not change the notifications.
	do(t, patient, chromedp.Navigate(s.url+"/lang?to="+url.QueryEscape(i18n.Languages[0].Tag)+"&next=/"), chromedp.WaitReady(chromedp.CSS("main")))
	if got, err := s.store.GetPatient(context.Background(), p.ID); err != nil || got.Language != i18n.Languages[len(i18n.Languages)-1].Tag {
		t.Errorf("the patient's language is %q (%v) after a GET /lang?to=%s, want %s kept", got.Language, err, i18n.Languages[0].Tag, i18n.Languages[len(i18n.Languages)-1].Tag)
	}
	t.Logf("axe ran %d times (%d pages × %d languages × 2 widths)", runs, len(pages), len(i18n.Languages))
}

// waitlistWithOffer gives p, on the waitlist of a full day two days
// ahead, the offer of a place freed there, and a second entry still waiting
// behind another patient; it returns that day.
func waitlistWithOffer(t *testing.T, s *site, p booking.Patient) schedule.Date {
	t.Helper()
	bg := context.Background()
	day := s.tomorrow.AddDays(1)
	start, end := schedule.DayBounds(day, s.loc)
	at := start.Add(10 * time.Hour)
	_, err := s.store.InsertSlots(bg, []booking.Slot{{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 1,
		OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900}})
	must(t, err)
	sls, err := s.store.ListSlots(bg, s.doctor.ID, start, end)
	must(t, err)
	holder := s.svc.Book(bg, s.patients[1].ID, sls[0].ID, "axe-holder")
	must(t, holder.Err)
	join := func(pid int64, key string, from, to time.Time) {
		_, _, err := s.svc.JoinWaitlist(bg, booking.WaitlistEntry{PatientID: pid, DoctorID: s.doctor.ID, From: from, To: to,
			PartOfDay: booking.PartAny, IdempotencyKey: key})
		must(t, err)
	}
	join(p.ID, "axe-wait", start, end)
	_, err = s.svc.Cancel(bg, holder.Appointment.ID, 0)
	must(t, err)
	_, err = s.svc.MakeOffers(bg, sls[0].ID)
	must(t, err)
	// A later day, full too: p waits behind patient 2.
	later, laterEnd := schedule.DayBounds(day.AddDays(1), s.loc)
	join(s.patients[2].ID, "axe-first", later, laterEnd)
	join(p.ID, "axe-second", later, laterEnd)
	return day
}

// TestE2EKeyboardOnlyBooking books with the keyboard alone, from the start
// page to the confirmation, every focused control visibly outlined. The
// patient signs in with the national form of the number (06 …), which the
// clinic's region (FR) reads as +33.
func TestE2EKeyboardOnlyBooking(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	ctx := tab(t, b)
	p := s.patients[1] // +33 6 12 34 56 01
	national := "06 12 34 56 01"

	do(t, ctx, chromedp.Navigate(s.url+"/signin"), chromedp.WaitVisible(chromedp.CSS("#phone")))
	tabTo(t, ctx, "#phone")
	do(t, ctx, chromedp.KeyEvent(national), chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("#code")))
	code := s.codes.code(p.Phone)
	if len(code) != 6 {
		t.Fatalf("no code was sent to the national form of the number (got %q)", code)
	}
	tabTo(t, ctx, "#code")
	do(t, ctx, chromedp.KeyEvent(code), chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`form[action="/signout"]`)))

	do(t, ctx, chromedp.Navigate(s.url+"/"), chromedp.WaitVisible(chromedp.CSS("ul.grid")))
	for _, step := range []struct{ focus, then string }{
		{fmt.Sprintf(`a[href="/departments/%d"]`, s.dept.ID), fmt.Sprintf(`a[href="/doctors/%d"]`, s.doctor.ID)},
		{fmt.Sprintf(`a[href="/doctors/%d"]`, s.doctor.ID), "table.calendar"},
		{fmt.Sprintf(`a[data-date="%s"]`, s.tomorrow), "ul.slots"},
		{fmt.Sprintf(`li[data-slot="%d"] button[type=submit]`, s.slots[1].ID), ".ticket"},
	} {
		if strings.Contains(step.focus, "data-date") {
			// Tomorrow may be in next month's page.
			found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.querySelector(%q)`, step.focus)))
			must(t, err)
			if !found {
				tabTo(t, ctx, `a[rel=next]`)
				do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS("table.calendar")))
			}
		}
		tabTo(t, ctx, step.focus)
		do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(step.then)))
	}
	if st := text(t, ctx, "[data-status]"); st != "BOOKED" {
		t.Fatalf("status %q", st)
	}
}

// tabTo presses Tab until css has the focus, and checks that the focus is
// visible (an outline).
func tabTo(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	for i := 0; i < 80; i++ {
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		on, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, css)))
		must(t, err)
		if on {
			style, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineStyle`))
			must(t, err)
			if style == "none" {
				t.Errorf("%s has the focus without an outline", css)
			}
			return
		}
	}
	t.Fatalf("80 Tabs did not reach %s", css)
}

// TestLanguageChoice: Accept-Language chooses, the switch overrides and is
// remembered, the problem sentences and dates follow, the clinic default
// applies when the browser asks for nothing we have.
func TestLanguageChoice(t *testing.T) {
	s := newSite(t)
	get := func(c *http.Client, path, accept string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", s.url+path, nil)
		must(t, err)
		if accept != "" {
			req.Header.Set("Accept-Language", accept)
		}
		res, err := c.Do(req)
		must(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		must(t, err)
		return res.StatusCode, string(b)
	}
	plain := &http.Client{Timeout: 30 * time.Second}
	for _, c := range []struct{ accept, lang, text string }{
		{"zh-CN,zh;q=0.9", "zh-Hans", "预约挂号"},
		{"vi", "vi", "Đặt lịch khám"},
		{"fr-FR,fr;q=0.9,en;q=0.5", "fr", "Prendre rendez-vous"},
		{"en-US", "en", "Book an appointment"},
		{"de-DE", "en", "Book an appointment"}, // the clinic default (en here)
	} {
		_, body := get(plain, "/", c.accept)
		if !strings.Contains(body, `<html lang="`+c.lang+`">`) || !strings.Contains(body, c.text) {
			t.Errorf("Accept-Language %s: want lang %s and %q", c.accept, c.lang, c.text)
		}
	}
	// A problem sentence in Vietnamese, with its status.
	if status, body := get(plain, "/no-such-page", "vi"); status != http.StatusNotFound || !strings.Contains(body, "Không tìm thấy") {
		t.Errorf("not-found in vi: %d", status)
	}
	// Dates: the calendar's month and weekdays in French.
	if _, body := get(plain, fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow), "fr"); !strings.Contains(body, frenchWeekday(s.tomorrow.Weekday())) {
		t.Errorf("the day page in French lacks the weekday %q", frenchWeekday(s.tomorrow.Weekday()))
	}

	// A day whose slots are published but not open yet says when it opens,
	// in the clinic's zone, rather than looking full.
	day := s.tomorrow.AddDays(2)
	start, _ := schedule.DayBounds(day, s.loc)
	opens := start.Add(-24 * time.Hour).Add(7 * time.Hour) // the day before, 07:00 in Paris
	_, err := s.store.InsertSlots(context.Background(), []booking.Slot{{DoctorID: s.doctor.ID, StartAt: start.Add(9 * time.Hour),
		EndAt: start.Add(9*time.Hour + 30*time.Minute), Capacity: 2, OpensAt: opens, Status: booking.SlotOpen, HoldSeconds: 900}})
	must(t, err)
	month := fmt.Sprintf("%d-%02d", day.Year, day.Month)
	if _, body := get(plain, fmt.Sprintf("/doctors/%d?month=%s", s.doctor.ID, month), "en"); !strings.Contains(body, "opens on") || !strings.Contains(body, "07:00") {
		t.Errorf("the calendar does not say when %s opens", day)
	}

	// The clinic's default applies when the browser asks for nothing we have.
	vi := newSite(t, withConfig(func(c *Config) { c.DefaultLanguage = "vi" }))
	req, err := http.NewRequest("GET", vi.url+"/", nil)
	must(t, err)
	req.Header.Set("Accept-Language", "de-DE")
	res0, err := plain.Do(req)
	must(t, err)
	b0, _ := io.ReadAll(res0.Body)
	res0.Body.Close()
	if !strings.Contains(string(b0), `<html lang="vi">`) {
		t.Error("--default-language vi was not used for Accept-Language de-DE")
	}

	// The switch: remembered over Accept-Language.
	jar, err := cookiejar.New(nil)
	must(t, err)
	withJar := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	if status, _ := get(withJar, "/lang?to=fr&next=/signin", "zh"); status != http.StatusOK {
		t.Fatalf("switch: %d", status)
	}
	if _, body := get(withJar, "/", "zh"); !strings.Contains(body, `<html lang="fr">`) {
		t.Error("the chosen language was not remembered")
	}
	if status, _ := get(withJar, "/lang?to=klingon", ""); status != http.StatusBadRequest {
		t.Errorf("an unknown language: %d, want 400", status)
	}
	// An open redirect is refused: next stays on the site.
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(s.url + "/lang?to=vi&next=//evil.example")
	must(t, err)
	res.Body.Close()
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Errorf("switch redirected to %q", loc)
	}
}

func frenchWeekday(d time.Weekday) string {
	return []string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}[d]
}
