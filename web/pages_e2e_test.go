package web

// The pages a patient and a receptionist trip over, in the browser: each
// in every language at desktop and phone width (360 px), none scrolling
// sideways. With SLOTD_PAGE_SHOTS=<dir> (and SLOTD_PAGE_SHOTS_PHASE, say
// "after") each is saved as <item>-<lang>-<phase>-<width>.png.

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/schedule"
)

// pagesSite is the site of the walk: newSite's samples, and a doctor whose
// schedule has not published its slots yet, and one with a fee.
type pagesSite struct {
	*site
	later   booking.Doctor // a schedule, no slots yet
	laterOn schedule.Date  // a day of later's that opens in the future
	fee     booking.Doctor // one slot tomorrow with a fee
	appt    int64          // an appointment of patients[0]
}

func newPagesSite(t *testing.T) *pagesSite {
	t.Helper()
	s := &pagesSite{site: newSite(t)}
	ctx := context.Background()
	var err error
	s.later, err = s.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr Lin Wang", DepartmentID: s.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	sc := booking.Schedule{DoctorID: s.later.ID, Weekdays: []time.Weekday{0, 1, 2, 3, 4, 5, 6}, StartTime: "09:00", EndTime: "10:00",
		SlotMinutes: 30, Capacity: 1, HorizonDays: 2, OpensAtTime: "07:00"}
	must(t, schedule.Normalize(&sc))
	_, err = s.store.CreateSchedule(ctx, sc) // the store's: no slots generated
	must(t, err)
	s.laterOn = s.tomorrow.AddDays(3)
	s.fee, err = s.store.CreateDoctor(ctx, booking.Doctor{Name: "Dr Hugo Moreau", DepartmentID: s.dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	start, _ := schedule.DayBounds(s.tomorrow, s.loc)
	at := start.Add(14 * time.Hour)
	_, err = s.store.InsertSlots(ctx, []booking.Slot{{DoctorID: s.fee.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 1,
		OpensAt: s.now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900, FeeCents: 2500}})
	must(t, err)
	p := s.patients[0]
	booked := s.svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, s.slots[2].ID, "pages-booked")
	must(t, booked.Err)
	s.appt = booked.Appointment.ID
	return s
}

// pageShot is one page of the walk.
type pageShot struct {
	item string // the file name's first part
	role string // "patient", "visitor" or "staff"
	path string
	// phone, when set, is a JavaScript test that must hold at 360 px;
	// check a test in Go.
	phone string
	check func(*testing.T, context.Context) bool
}

// inView: every link of the doctors table is within the phone's width.
const inView = `[...document.querySelectorAll('#doctors a')].every(a => { const r = a.getBoundingClientRect(); return r.width > 0 && r.right <= window.innerWidth })`

// fullBarIsRed: the full slot's bar is drawn red (the clinic's --bad),
// not a meter's green: the middle pixel of its screenshot.
func fullBarIsRed(t *testing.T, ctx context.Context) bool {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(".bars li.full meter")))
	must(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	must(t, err)
	r, g, bl, _ := img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2).RGBA()
	return r>>8 > 150 && g>>8 < 90 && bl>>8 < 90
}

// cellsShort: no calendar cell's text takes more than two lines.
const cellsShort = `[...document.querySelectorAll('.calendar .left')].filter(e => e.offsetParent).every(e => e.getBoundingClientRect().height <= 2.5 * parseFloat(getComputedStyle(e).lineHeight))`

func TestE2EPagesEveryLanguageBothWidths(t *testing.T) {
	b := browser(t)
	s := newPagesSite(t)
	dir, phase := os.Getenv("SLOTD_PAGE_SHOTS"), os.Getenv("SLOTD_PAGE_SHOTS_PHASE")
	if dir == "" {
		dir = t.TempDir()
	}
	if phase == "" {
		phase = "after"
	}
	must(t, os.MkdirAll(dir, 0o755))
	const walk = 10 * time.Minute
	tabs := map[string]context.Context{"patient": tabFor(t, b, walk), "visitor": tabFor(t, b, walk), "staff": tabFor(t, b, walk)}
	s.signIn(t, tabs["patient"], s.patients[0], "", false)
	s.staffSignIn(t, tabs["staff"], "admin", "#h-docs")
	appt := fmt.Sprintf("/appointments/%d", s.appt)
	pages := []pageShot{
		{item: "01-day-opens", role: "patient", path: fmt.Sprintf("/doctors/%d/days/%s", s.later.ID, s.laterOn)},
		{item: "02-day-times", role: "patient", path: fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)},
		{item: "03-signin-sentence", role: "visitor", path: fmt.Sprintf("/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)},
		{item: "04-calendar-cells", role: "patient", path: fmt.Sprintf("/doctors/%d", s.later.ID), phone: cellsShort},
		{item: "05-queue-confirmation", role: "patient", path: appt + "?booked=1"},
		{item: "05-queue-history", role: "patient", path: "/history"},
		{item: "05-queue-appointments", role: "patient", path: "/appointments"},
		{item: "06-fee", role: "patient", path: fmt.Sprintf("/doctors/%d/days/%s", s.fee.ID, s.tomorrow)},
		{item: "07-dashboard-full", role: "staff", path: "/staff/dashboard", check: fullBarIsRed},
		{item: "08-clinic-close", role: "staff", path: "/staff/clinic"},
		{item: "09-staff-doctors", role: "staff", path: "/staff", phone: inView},
		{item: "10-confirmation-cancel", role: "patient", path: appt + "?booked=1"},
		{item: "12-staff-doctor", role: "staff", path: fmt.Sprintf("/staff/doctors/%d?date=%s", s.doctor.ID, s.tomorrow)},
		{item: "12-cancel", role: "patient", path: appt + "/cancel"},
	}
	for _, l := range i18n.Languages {
		for _, ctx := range tabs {
			do(t, ctx, chromedp.Navigate(s.url+"/lang?to="+url.QueryEscape(l.Tag)+"&next=/"), chromedp.WaitReady(chromedp.CSS("body")))
		}
		for _, pg := range pages {
			ctx := tabs[pg.role]
			do(t, ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(s.url+pg.path), chromedp.WaitReady(chromedp.CSS("main")))
			shoot(t, ctx, dir, pg.item, l.Tag, phase)
			if pg.phone != "" {
				ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](pg.phone))
				must(t, err)
				if !ok {
					t.Errorf("%s in %s at 360 px: %s does not hold", pg.item, l.Tag, pg.phone)
				}
			}
			if pg.check != nil && !pg.check(t, ctx) {
				t.Errorf("%s in %s at 360 px: the check fails", pg.item, l.Tag)
			}
		}
	}
	// The demo's catalog, as a clinic of each language sees it first.
	for _, l := range i18n.Languages {
		d := newSite(t, withoutSamples())
		_, err := demo.Load(context.Background(), d.store, demoOptions(l.Tag))
		must(t, err)
		ctx := tab(t, b)
		do(t, ctx, chromedp.Navigate(d.url+"/lang?to="+url.QueryEscape(l.Tag)+"&next=/"), chromedp.WaitReady(chromedp.CSS("main")))
		shoot(t, ctx, dir, "11-demo-home", l.Tag, phase)
		do(t, ctx, chromedp.Navigate(d.url+"/departments/2"), chromedp.WaitReady(chromedp.CSS("main")))
		shoot(t, ctx, dir, "11-demo-department", l.Tag, phase)
	}
}

// shoot saves the page at 1280 and 360 px and fails when the phone width
// scrolls sideways.
func shoot(t *testing.T, ctx context.Context, dir, item, lang, phase string) {
	t.Helper()
	// Phone last: the checks after it run at 360 px.
	for _, w := range []struct{ w, h int64 }{{1280, 900}, {360, 780}} {
		do(t, ctx, chromedp.EmulateViewport(w.w, w.h))
		if w.w == 360 {
			over, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
			must(t, err)
			if over {
				t.Errorf("%s in %s scrolls sideways at 360 px", item, lang)
			}
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%s-%d.png", item, lang, phase, w.w)), png, 0o644))
	}
}

// demoOptions is a small demo for a clinic of language lang.
func demoOptions(lang string) demo.Options {
	return demo.Options{Doctors: 3, Days: 2, Patients: 1, Language: lang}
}
