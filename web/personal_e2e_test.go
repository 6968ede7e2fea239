package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/booking"
)

// TestE2EMyDataAndErasure: a patient downloads "My data" from the history
// page; staff erase the patient through the confirmation step, which
// refuses an empty reason; afterwards the future appointment is cancelled,
// the list shows the patient erased, and the phone finds nobody.
func TestE2EMyDataAndErasure(t *testing.T) {
	b := browser(t)
	s := newSite(t)
	p := s.patients[0]
	booked := s.svc.Book(context.Background(), p.ID, s.slots[1].ID, "mydata-1")
	must(t, booked.Err)

	patient := tab(t, b)
	s.signIn(t, patient, p, "", false)
	do(t, patient, chromedp.Navigate(s.url+"/history"), chromedp.WaitVisible(chromedp.CSS(`a[href="/my-data"]`)))
	body, err := chromedp.Run(patient, chromedp.Evaluate[string](`fetch('/my-data').then(r => r.text())`, chromedp.EvalAwaitPromise))
	must(t, err)
	var ex booking.PatientExport
	if err := json.Unmarshal([]byte(body), &ex); err != nil || ex.Patient.ID != p.ID || ex.Patient.Name != p.Name || len(ex.Appointments) != 1 {
		t.Fatalf("My data: %v %.300s", err, body)
	}

	staff := tab(t, b)
	s.staffSignIn(t, staff, "admin", "#h-docs")
	// Staff find the patient by the national form of the phone (its keyed
	// hash), in a POST: the number is in no URL.
	do(t, staff, chromedp.Navigate(s.url+"/staff/patients"), chromedp.WaitVisible(chromedp.CSS("#p-find")),
		chromedp.SendKeys(chromedp.CSS("#p-find"), "06 12 34 56 00"),
		chromedp.Click(chromedp.CSS(`form[action="/staff/patients/find"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS("#found")))
	if got := text(t, staff, "#found"); !strings.Contains(got, p.Name) {
		t.Fatalf("find by phone: %q, want %s", got, p.Name)
	}
	erase := fmt.Sprintf(`a[href="/staff/patients/%d/erase"]`, p.ID)
	do(t, staff, chromedp.Navigate(s.url+"/staff/patients"), chromedp.WaitVisible(chromedp.CSS(erase)),
		chromedp.Click(chromedp.CSS(erase)), chromedp.WaitVisible(chromedp.CSS("#e-reason")))
	if got := text(t, staff, "h2#h-erase"); !strings.Contains(got, p.Name) {
		t.Fatalf("the confirmation names %q, want %s", got, p.Name)
	}
	// An empty reason (sent past the browser's own check) is refused.
	do(t, staff, chromedp.Evaluate[chromedp.Void](`document.getElementById('e-reason').removeAttribute('required')`),
		chromedp.Click(chromedp.CSS(`form[action$="/erase"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".problem")))
	if got, err := s.store.GetPatient(context.Background(), p.ID); err != nil || got.ErasedAt != nil {
		t.Fatalf("erased without a reason: %+v (%v)", got, err)
	}
	do(t, staff, chromedp.SendKeys(chromedp.CSS("#e-reason"), "the patient asked (art. 17)"),
		chromedp.Click(chromedp.CSS(`form[action$="/erase"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if got := text(t, staff, "main"); !strings.Contains(got, "(erased)") || strings.Contains(got, p.Name) {
		t.Fatalf("the list after erasure: %s", got)
	}
	if a, err := s.store.GetAppointment(context.Background(), booked.Appointment.ID); err != nil || a.Status != booking.StatusCancelled {
		t.Fatalf("the future appointment: %+v (%v), want cancelled", a, err)
	}
	if _, err := s.store.PatientByPhone(context.Background(), s.svc.NormalizePhone(p.Phone)); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the erased patient's phone: %v, want not found", err)
	}
}
