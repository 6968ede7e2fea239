package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
)

// TestE2EQueueConsoleAndBoard: a morning with three check-ins; at the
// console a call, a recall, a skip, the next call, a start and a
// completion; the board in another tab (opened by its key, no session)
// follows each live. Screenshots of both at 1920×1080.
func TestE2EQueueConsoleAndBoard(t *testing.T) {
	b := browser(t)
	clk := newClock(time.Now())
	s := newSite(t, withClock(clk.Now))
	clk.add(s.slots[2].StartAt.Sub(clk.Now()) - 20*time.Minute)
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: "admin", ID: "e2e"})
	var as []booking.Appointment
	for i, p := range s.patients[:2] {
		r := s.svc.Book(ctx, p.ID, s.slots[2+i].ID, fmt.Sprintf("queue-e2e-%d", i))
		must(t, r.Err)
		_, _, err := s.svc.CheckIn(ctx, booking.Actor{Role: "admin", ID: "e2e"}, r.Appointment.ID, "")
		must(t, err)
		as = append(as, r.Appointment)
	}

	board := tab(t, b)
	do(t, board, chromedp.EmulateViewport(1920, 1080),
		chromedp.Navigate(fmt.Sprintf("%s/display/doctors/%d?key=%s", s.url, s.doctor.ID, s.pages.displayToken(s.doctor.ID))),
		chromedp.WaitVisible(chromedp.CSS("#board")))
	waitBoard := func(js string) {
		t.Helper()
		if _, err := chromedp.Run(board, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			page, _ := chromedp.Run(board, chromedp.Text(chromedp.CSS("#board")))
			t.Fatalf("the board never showed %s: %v\n%s", js, err, page)
		}
	}
	console := tab(t, b)
	s.staffSignIn(t, console, "admin", "#h-docs")
	path := fmt.Sprintf("%s/queue/doctors/%d", s.url, s.doctor.ID)
	do(t, console, chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(path), chromedp.WaitVisible(chromedp.CSS("#call-next")))
	click := func(css string) {
		t.Helper()
		must(t, press(console, css))
	}

	click("#call-next")
	waitBoard(`document.querySelector("#board-called .board-name")?.textContent === "A. N***"`)
	click(`[data-action="recall"]`)
	waitBoard(`document.querySelector("#board-called").dataset.calls === "2"`)
	click(`[data-action="skip"]`)
	waitBoard(`!!document.querySelector("#board-called .board-none") && document.querySelector("#board-next .board-name")?.textContent === "L. B***"`)
	room := "Room 3" // set while the board is open: the next event carries it
	_, err := s.svc.UpdateDoctor(ctx, s.doctor.ID, booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{ConsultingRoom: &room}})
	must(t, err)
	click("#call-next")
	waitBoard(`document.querySelector("#board-called .board-name")?.textContent === "L. B***" && document.querySelector("#board-called .board-room")?.textContent === "\u2192 Room 3"`)
	shootWide(t, board, "queue-board")
	shootWide(t, console, "queue-console")
	click(`[data-action="start"]`)
	waitBoard(`!!document.querySelector("#board-called .board-none")`)
	clk.add(s.slots[3].StartAt.Sub(clk.Now()) + 5*time.Minute)
	do(t, console, chromedp.Click(chromedp.CSS(`[data-action="complete"]`)))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, err := s.svc.Appointment(context.Background(), as[1].ID, 0)
		if err == nil && got.Status == booking.StatusCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Complete: %+v %v", got, err)
		}
	}
	// Complete's own navigation (its redirect) may still be under way:
	// a Navigate then is aborted by it, so it is tried again.
	for try := 0; ; try++ {
		err := chromedp.Do(console, chromedp.Navigate(path), chromedp.WaitVisible(chromedp.CSS("#call-next")))
		if err == nil {
			break
		}
		if try == 2 || !strings.Contains(err.Error(), "ERR_ABORTED") {
			t.Fatalf("reloading the console: %v", err)
		}
	}
	page, err := chromedp.Run(console, chromedp.Text(chromedp.CSS("main")))
	must(t, err)
	if !strings.Contains(page, "Nobody is in consultation.") || !strings.Contains(page, "skipped") {
		t.Fatalf("the console after the completion:\n%s", page)
	}
}

// shootWide saves the page at 1920×1080 (docs/screenshots with
// SLOTD_SCREENSHOTS=1): the console and the board are for large screens.
func shootWide(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := t.TempDir()
	if os.Getenv("SLOTD_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "docs", "screenshots")
		must(t, os.MkdirAll(dir, 0o755))
	}
	do(t, ctx, chromedp.EmulateViewport(1920, 1080), chromedp.Sleep(150*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, name+"-1920.png"), png, 0o644))
}
