package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// TestE2EMorning: a whole morning at one doctor. Ten people book the
// 08:00 slot; seven come: four check in by code at the kiosk, three at
// the desk from the day page; three never come. At the console the
// doctor calls, recalls, skips, calls again, starts and completes; the
// doctor's board and the department's board (1920×1080, opened by their
// keys, the department's on a screen set to Chinese) and one patient's
// page on a phone follow each step without a reload. Then two consoles
// call at the same moment: they take two different people, the second
// passing the first's. axe finds nothing serious on the boards and the
// patient's page mid-morning. Screenshots (SLOTD_SCREENSHOTS=1): the
// console, both boards and the patient's page.
func TestE2EMorning(t *testing.T) {
	b := browser(t)
	clk := newClock(time.Now())
	s := newSite(t, withClock(clk.Now))
	bg := context.Background()
	start, _ := schedule.DayBounds(s.tomorrow, s.loc)
	at := start.Add(8 * time.Hour)
	_, err := s.store.InsertSlots(bg, []booking.Slot{{DoctorID: s.doctor.ID, StartAt: at, EndAt: at.Add(30 * time.Minute), Capacity: 10,
		OpensAt: clk.Now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900}})
	must(t, err)
	sl, err := s.store.ListSlots(bg, s.doctor.ID, at, at.Add(time.Minute))
	must(t, err)
	names := []string{"Marie Dupont", "张三", "Nguyễn Văn An", "Jean Martin", "欧阳娜娜", "Paul Girard", "Trần Thị Mai", "Sophie Laurent", "李四", "Hugo Petit"}
	var ps []booking.Patient
	var as []booking.Appointment
	for i, name := range names {
		p, err := s.store.CreatePatient(bg, booking.Patient{Name: name, Phone: fmt.Sprintf("+33 6 98 76 54 %02d", i)})
		must(t, err)
		r := s.svc.Book(booking.WithActor(bg, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, sl[0].ID, fmt.Sprintf("morning-%d", i))
		must(t, r.Err)
		ps, as = append(ps, p), append(as, r.Appointment)
	}
	clk.add(at.Sub(clk.Now()) - 20*time.Minute) // the check-in window is open

	// The kiosk: the first four type their codes.
	kiosk := tab(t, b)
	s.staffSignIn(t, kiosk, "admin", "#h-docs")
	for _, a := range as[:4] {
		do(t, kiosk, chromedp.Navigate(s.url+"/kiosk"), chromedp.WaitVisible(chromedp.CSS("#k-code")),
			chromedp.SendKeys(chromedp.CSS("#k-code"), s.svc.CheckInCode(a.ID)),
			chromedp.Click(chromedp.CSS(`#kiosk-form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(".kiosk-result")))
	}
	// The desk: three more from the day page.
	day := fmt.Sprintf("%s/staff/doctors/%d/days/%s", s.url, s.doctor.ID, s.tomorrow)
	for _, a := range as[4:7] {
		row := fmt.Sprintf(`[data-appointment="%d"]`, a.ID)
		do(t, kiosk, chromedp.Navigate(day), chromedp.WaitVisible(chromedp.CSS(row+" [data-check-in]")),
			chromedp.Click(chromedp.CSS(row+" [data-check-in]")),
			chromedp.WaitVisible(chromedp.CSS(row+" .badge.ARRIVED")))
	}

	// Jean Martin (No. 4) follows on a phone: three ahead of him.
	patient := tab(t, b)
	do(t, patient, chromedp.EmulateViewport(390, 844))
	s.signIn(t, patient, ps[3], fmt.Sprintf("/appointments/%d", as[3].ID), false)
	do(t, patient, chromedp.WaitVisible(chromedp.CSS("[data-live]")))
	_, err = chromedp.Run(patient, chromedp.Evaluate[bool](`window.notReloaded = true`))
	must(t, err)
	waitFor := func(ctx context.Context, what, js string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").innerText`))
			t.Fatalf("the %s never showed %s: %v\n%s", what, js, err, page)
		}
	}
	line := func(want string) {
		t.Helper()
		waitFor(patient, "patient's page", fmt.Sprintf(`window.notReloaded === true && document.querySelector("[data-live]").textContent.startsWith(%q)`, want))
	}
	line("3 ahead of you, about 9 minutes.") // the slot's 30 minutes over its 10 places, each
	room := "诊室 3"
	_, err = s.svc.UpdateDoctor(bg, s.doctor.ID, booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{ConsultingRoom: &room}})
	must(t, err)

	board := tab(t, b)
	do(t, board, chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(fmt.Sprintf("%s/display/doctors/%d?key=%s", s.url, s.doctor.ID, s.pages.displayToken(s.doctor.ID))),
		chromedp.WaitVisible(chromedp.CSS("#board")))
	dept := tab(t, b)
	do(t, dept, chromedp.EmulateViewport(1920, 1080), // a screen set to Chinese
		chromedp.Navigate(s.url+"/lang?to=zh-Hans&next="+url.QueryEscape(s.pages.departmentBoardLink(s.dept.ID))),
		chromedp.WaitVisible(chromedp.CSS("#board")))
	called := func(name string, calls int) {
		t.Helper()
		waitFor(board, "board", fmt.Sprintf(`document.querySelector("#board-called .board-name")?.textContent === %q && document.querySelector("#board-called").dataset.calls === "%d"`, name, calls))
		waitFor(dept, "department's board", fmt.Sprintf(`document.querySelector('[data-doctor="%d"] .dept-called .board-name')?.textContent === %q`, s.doctor.ID, name))
	}

	clk.add(30 * time.Minute) // 08:10: the doctor begins
	console := tab(t, b)
	s.staffSignIn(t, console, "admin", "#h-docs")
	path := fmt.Sprintf("%s/queue/doctors/%d", s.url, s.doctor.ID)
	do(t, console, chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(path), chromedp.WaitVisible(chromedp.CSS("#call-next")))
	click := func(css string) {
		t.Helper()
		must(t, press(console, css))
	}
	click("#call-next")
	called("M. D***", 1)
	line("2 ahead of you")
	click(`[data-action="recall"]`)
	called("M. D***", 2)
	click(`[data-action="skip"]`)
	waitFor(board, "board", `!!document.querySelector("#board-called .board-none")`)
	click("#call-next")
	called("张*", 1)
	line("1 ahead of you")
	// The room beside the call on both boards, and heading the doctor's row.
	waitFor(board, "board", `document.querySelector("#board-called .board-room")?.textContent === "\u2192 诊室 3"`)
	waitFor(dept, "department's board", fmt.Sprintf(`document.querySelector('[data-doctor="%d"] .dept-called .board-room')?.textContent === "\u2192 诊室 3" && document.querySelector('[data-doctor="%d"] .dept-doctor .board-room')?.textContent === "诊室 3"`, s.doctor.ID, s.doctor.ID))
	// The console names (masked) everyone waiting, past the board's five.
	waitFor(console, "console", `document.querySelectorAll("[data-waiting]").length === 6 && [...document.querySelectorAll("[data-waiting] .hint")].every(h => h.textContent.includes("*"))`)
	shootWide(t, console, "morning-console")
	shootWide(t, board, "morning-board")
	shootWide(t, dept, "morning-department-board")
	shootPhone(t, patient, "morning-patient")
	t.Run("axe", func(t *testing.T) { // the boards as they stand, rebuilt by their streams
		axe := axeSource(t)
		for name, ctx := range map[string]context.Context{"board": board, "department's board": dept, "patient's page": patient} {
			_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](axe+";true"))
			must(t, err)
			for _, v := range runAxe(t, ctx) {
				t.Errorf("%s: %s %s: %s %+v", name, v.Impact, v.ID, v.Help, v.Nodes)
			}
		}
	})
	click(`[data-action="start"]`)
	click(`[data-action="complete"]`)
	click("#call-next")
	called("N. A***", 1)
	line("You are next")

	// Two consoles call at the same moment: two different people.
	second := tab(t, b)
	s.staffSignIn(t, second, "admin", "#h-docs")
	do(t, second, chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(path), chromedp.WaitVisible(chromedp.CSS("#call-next")))
	before, err := s.svc.DayQueue(bg, booking.Actor{Role: "admin", ID: "e2e"}, s.doctor.ID)
	must(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, c := range []context.Context{console, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = press(c, "#call-next")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		must(t, err)
	}
	after, err := s.svc.DayQueue(bg, booking.Actor{Role: "admin", ID: "e2e"}, s.doctor.ID)
	must(t, err)
	took := map[int]int64{}
	for _, e := range after.Entries {
		if e.CallSeq > before.Calls {
			took[e.CallSeq] = e.AppointmentID
		}
	}
	// The first call takes Jean Martin (No. 4); the second passes him, not
	// started, and takes back Marie Dupont, skipped three calls before.
	if after.Calls != before.Calls+2 || len(took) != 2 || took[before.Calls+1] != as[3].ID || took[before.Calls+2] != as[0].ID {
		t.Fatalf("two consoles at once: calls %d → %d, took %v; want %d then %d", before.Calls, after.Calls, took, as[3].ID, as[0].ID)
	}
	called("M. D***", 3)
	// Jean comes back after 欧阳娜娜 (No. 5) and Nguyễn Văn An, passed before him.
	line("2 ahead of you")
	for i, a := range as {
		got, err := s.svc.Appointment(bg, a.ID, 0)
		must(t, err)
		want := booking.StatusArrived
		switch {
		case i == 1:
			want = booking.StatusCompleted
		case i >= 7:
			want = booking.StatusBooked
		}
		if got.Status != want {
			t.Errorf("%s is %s, want %s", names[i], got.Status, want)
		}
	}
}

// shootPhone saves the page 390 px wide (docs/screenshots with
// SLOTD_SCREENSHOTS=1): a patient's phone.
func shootPhone(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := t.TempDir()
	if os.Getenv("SLOTD_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "docs", "screenshots")
		must(t, os.MkdirAll(dir, 0o755))
	}
	do(t, ctx, chromedp.EmulateViewport(390, 844), chromedp.Sleep(150*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, name+"-390.png"), png, 0o644))
}
