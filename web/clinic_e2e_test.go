package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
)

// staffSignIn signs in on the staff form as name.
func (s *site) staffSignIn(t *testing.T, ctx context.Context, name string, wait string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(s.url+"/staff/signin"), chromedp.WaitVisible(chromedp.CSS("#password")),
		chromedp.SendKeys(chromedp.CSS("#name"), name),
		chromedp.SendKeys(chromedp.CSS("#password"), staffPassword),
		chromedp.Click(chromedp.CSS(`form[action="/staff/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(wait)),
	)
}

// TestE2EStaffAuditImportRefund: staff read the audit log, import a CSV
// with a dry run first, and record a refund, which leaves the
// reconciliation clean of refunds.
func TestE2EStaffAuditImportRefund(t *testing.T) {
	b := browser(t)
	clk := newClock(time.Now())
	s := newSite(t, withClock(clk.Now))
	ctx := tab(t, b)
	bg := context.Background()
	// A payment too late for its hold: a refund to make.
	sl, err := s.store.CreateSlot(bg, booking.Slot{DoctorID: s.doctor.ID, StartAt: s.slots[0].StartAt.Add(48 * time.Hour),
		EndAt: s.slots[0].EndAt.Add(48 * time.Hour), Capacity: 1, OpensAt: clk.Now().Add(-time.Hour), Status: booking.SlotOpen,
		FeeCents: 1500, HoldSeconds: 1})
	must(t, err)
	held := s.svc.Book(bg, s.patients[0].ID, sl.ID, "late")
	must(t, held.Err)
	clk.add(2 * time.Second) // the 1 s hold has ended
	if _, err := s.svc.ConfirmPayment(bg, booking.Payment{TradeNo: "E2E-1", AppointmentID: held.Appointment.ID, AmountCents: 1500}); booking.ErrorCode(err) != booking.CodePaymentRejected {
		t.Fatalf("late payment: %v", err)
	}

	s.staffSignIn(t, ctx, "admin", "#h-docs")
	do(t, ctx, chromedp.Navigate(s.url+"/staff/audit?entity=appointment"), chromedp.WaitVisible(chromedp.CSS("#audit")))
	if got := text(t, ctx, "#audit tbody"); !strings.Contains(got, "appointment 1: booked") || !strings.Contains(got, "appointment 2: changed by a payment") {
		t.Fatalf("audit log shows %q", got)
	}
	screenshot(t, ctx, "staff-audit")

	do(t, ctx, chromedp.Navigate(s.url+"/staff/import"), chromedp.WaitVisible(chromedp.CSS("#csv")),
		chromedp.SetValue(chromedp.CSS("#csv"), "department\nNeurology\n=1+1\n"),
		chromedp.Click(chromedp.CSS(`form[action="/staff/import"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#import-report")))
	if got := text(t, ctx, "#import-report"); !strings.Contains(got, "1 would be created") || !strings.Contains(got, "Line 3") {
		t.Fatalf("dry run report %q", got)
	}
	if ds, _ := s.store.ListAllDepartments(bg, booking.Page{}); len(ds) != 2 {
		t.Fatalf("the dry run created departments: %d", len(ds))
	}
	do(t, ctx, chromedp.Navigate(s.url+"/staff/import"), chromedp.WaitVisible(chromedp.CSS("#csv")),
		chromedp.SetValue(chromedp.CSS("#csv"), "department\nNeurology\n=1+1\n"),
		chromedp.Click(chromedp.CSS(`input[name=dryrun]`)),
		chromedp.Click(chromedp.CSS(`form[action="/staff/import"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS("#import-report")))
	if got := text(t, ctx, "#import-report"); !strings.Contains(got, "1 created") {
		t.Fatalf("import report %q", got)
	}
	screenshot(t, ctx, "staff-import")

	do(t, ctx, chromedp.Navigate(s.url+"/staff/reconciliation"), chromedp.WaitVisible(chromedp.CSS(`[data-trade="E2E-1"]`)))
	if got := text(t, ctx, "#verdict"); !strings.Contains(got, "1 pending") {
		t.Fatalf("verdict %q", got)
	}
	do(t, ctx, chromedp.SendKeys(chromedp.CSS("#ref-E2E-1"), "RF-42"),
		chromedp.Click(chromedp.CSS(`[data-trade="E2E-1"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if got := text(t, ctx, "#verdict"); !strings.Contains(got, "Clean") {
		t.Fatalf("after the refund the verdict is %q", got)
	}
	screenshot(t, ctx, "staff-reconciliation")
	es, err := s.svc.Audit(bg, booking.AuditFilter{Entity: booking.EntityPayment, ActorRole: "admin", ActorID: "admin"})
	must(t, err)
	if len(es) != 1 || es[0].Action != "refund" {
		t.Fatalf("the refund is not audited as the staff user's: %+v", es)
	}
}

// TestE2EDoctorSeesOwnDay: a staff account of role doctor signs in to its
// doctor's day, prints it, marks an appointment, and cannot open the
// admin pages; a patient reads the history of their appointment.
func TestE2EDoctorSeesOwnDay(t *testing.T) {
	b := browser(t)
	// The pages' clock is tomorrow evening, after the seeded appointment
	// started: only then can it be marked.
	paris, _ := time.LoadLocation("Europe/Paris")
	_, evening := schedule.DayBounds(schedule.DateOf(time.Now(), paris).AddDays(1), paris)
	s := newSite(t, withConfig(func(c *Config) {
		c.Service = service.NewService(c.Store.(booking.Store), service.Options{
			Now: func() time.Time { return evening.Add(-time.Hour) }})
	}))
	bg := context.Background()
	hash, err := accounts.HashPassword(staffPassword)
	must(t, err)
	must(t, s.store.SetStaffPassword(bg, "drmartin", hash, time.Now()))
	must(t, s.store.SetStaffDoctor(bg, "drmartin", s.doctor.ID))

	ctx := tab(t, b)
	s.staffSignIn(t, ctx, "drmartin", `form[action="/signout"]`)
	if l := location(t, ctx); !strings.HasSuffix(l, "/doctor/days/today") {
		t.Fatalf("a doctor lands on %s", l)
	}
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/doctor/days/%s", s.url, s.tomorrow)), chromedp.WaitVisible(chromedp.CSS("[data-appointment]")))
	if got := text(t, ctx, "[data-appointment]"); !strings.Contains(got, "Léa Dubois") {
		t.Fatalf("the doctor's day shows %q", got)
	}
	screenshot(t, ctx, "doctor-day")
	do(t, ctx, chromedp.Click(chromedp.CSS(`[data-appointment] button[value=NO_SHOW]`)), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if got := text(t, ctx, "[data-appointment]"); !strings.Contains(got, "NO_SHOW") {
		t.Fatalf("after no-show: %q", got)
	}
	do(t, ctx, chromedp.Navigate(fmt.Sprintf("%s/doctor/days/%s?print=1", s.url, s.tomorrow)), chromedp.WaitVisible(chromedp.CSS(".print table")))
	if got := text(t, ctx, ".print table"); !strings.Contains(got, "Léa Dubois") {
		t.Fatalf("printable day %q", got)
	}
	// The admin pages are not a doctor's.
	do(t, ctx, chromedp.Navigate(s.url+"/staff/audit"), chromedp.WaitVisible(chromedp.CSS("#password")))

	pctx := tab(t, b)
	s.signIn(t, pctx, s.patients[2], "", false)
	do(t, pctx, chromedp.Navigate(s.url+"/history"), chromedp.WaitVisible(chromedp.CSS("#history")))
	if got := text(t, pctx, "#history tbody"); !strings.Contains(got, "marked no-show") || !strings.Contains(got, "doctor") || !strings.Contains(got, "booked") {
		t.Fatalf("the patient's history shows %q", got)
	}
	screenshot(t, pctx, "patient-history")
}
