package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
)

// TestE2EKioskChecksIn: the patient's appointment page shows the code and
// its QR image; at the kiosk, staff's tablet, the code typed checks the
// patient in, the answer names the queue number, the doctor and the time,
// and the day page shows ARRIVED. The camera button is offered only where
// the browser has a BarcodeDetector.
func TestE2EKioskChecksIn(t *testing.T) {
	b := browser(t)
	clk := newClock(time.Now())
	s := newSite(t, withClock(clk.Now))
	bg := context.Background()
	p := s.patients[0]
	booked := s.svc.Book(booking.WithActor(bg, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, s.slots[2].ID, "kiosk-e2e")
	must(t, booked.Err)
	a := booked.Appointment
	code := s.svc.CheckInCode(a.ID)

	patient := tab(t, b)
	s.signIn(t, patient, p, fmt.Sprintf("/appointments/%d", a.ID), false)
	do(t, patient, chromedp.WaitVisible(chromedp.CSS("[data-checkin-code]")))
	if got := text(t, patient, "[data-checkin-code]"); got != code {
		t.Fatalf("the page shows the code %q, want %q", got, code)
	}
	loaded, err := chromedp.Run(patient, chromedp.Poll[int](`(() => { const i = document.querySelector('img[src$="check-in.png"]'); return i && i.complete ? i.naturalWidth : 0 })()`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil || loaded != qrPixels {
		t.Fatalf("the QR image: %d px wide, %v", loaded, err)
	}
	screenshot(t, patient, "appointment-check-in") // and no sideways scroll on a phone

	clk.add(a.StartAt.Sub(clk.Now()) - 20*time.Minute) // inside the window
	kiosk := tab(t, b)
	s.staffSignIn(t, kiosk, "admin", "#h-docs")
	do(t, kiosk, chromedp.Navigate(s.url+"/kiosk"), chromedp.WaitVisible(chromedp.CSS("#k-code")))
	detector, err := chromedp.Run(kiosk, chromedp.Evaluate[bool](`"BarcodeDetector" in window`))
	must(t, err)
	hidden, err := chromedp.Run(kiosk, chromedp.Evaluate[bool](`document.querySelector("#k-scan").hidden`))
	must(t, err)
	if hidden == detector {
		t.Fatalf("the scan button is hidden %v with BarcodeDetector %v", hidden, detector)
	}
	do(t, kiosk,
		chromedp.SendKeys(chromedp.CSS("#k-code"), strings.ToLower(code)),
		chromedp.Click(chromedp.CSS(`#kiosk-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".kiosk-result")),
	)
	want := fmt.Sprintf("Checked in: queue number %d, %s at %s", a.QueueNumber, s.doctor.Name, a.StartAt.In(s.loc).Format("15:04"))
	if got := text(t, kiosk, ".kiosk-result"); !strings.Contains(got, want) {
		t.Fatalf("the kiosk says %q, want %q", got, want)
	}
	screenshot(t, kiosk, "kiosk")
	// The next person: a wrong code is refused on the kiosk itself.
	do(t, kiosk,
		chromedp.Navigate(s.url+"/kiosk"), chromedp.WaitVisible(chromedp.CSS("#k-code")),
		chromedp.SendKeys(chromedp.CSS("#k-code"), "AAAA-AAAA"),
		chromedp.Click(chromedp.CSS(`#kiosk-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`.problem[data-code="bad-check-in-code"]`)),
		chromedp.WaitVisible(chromedp.CSS("#k-code")),
	)
	do(t, kiosk, chromedp.Navigate(fmt.Sprintf("%s/staff/doctors/%d/days/%s", s.url, s.doctor.ID, s.tomorrow)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`[data-appointment="%d"] .badge.ARRIVED`, a.ID))))
}
