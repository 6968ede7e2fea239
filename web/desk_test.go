package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
)

// The front desk on the pages, as reception: the admin's pages refused, a
// walk-in registered without a phone, found again by name and birth date,
// booked from the doctor's day page (a retried form answers the first
// booking), moved to another slot and cancelled, each audited as
// reception's.
func TestDeskPages(t *testing.T) {
	s := &pagesSite{site: newSite(t)}
	ctx := context.Background()

	// The admin's pages and forms are not the front desk's.
	if status, _ := s.postAs(t, "reception", "en", "/staff/clinic/policy", url.Values{}); status != http.StatusForbidden {
		t.Fatalf("reception posting the clinic's policy: %d, want 403", status)
	}
	if status, _ := s.postAs(t, "reception", "en", "/staff/departments", url.Values{"name": {"X"}}); status != http.StatusForbidden {
		t.Fatalf("reception adding a department: %d, want 403", status)
	}
	if page := mainOf(s.getAs(t, "reception", "en", "/staff/patients")); strings.Contains(page, "h-list") || strings.Contains(page, s.patients[0].Name) {
		t.Fatalf("reception is shown the list of every person:\n%s", page)
	}

	// A walk-in without a phone.
	status, _ := s.postAs(t, "reception", "en", "/staff/patients", url.Values{"name": {"Lan Walkin"}, "birthDate": {"1975-06-07"}})
	if status != http.StatusSeeOther {
		t.Fatalf("registering a walk-in: %d", status)
	}
	if status, body := s.postAs(t, "reception", "en", "/staff/patients", url.Values{"name": {"Lan Walkin"}, "birthDate": {"2999-01-01"}}); status != http.StatusBadRequest || !strings.Contains(body, "birth date") {
		t.Fatalf("a birth date to come: %d", status)
	}
	_, found := s.postAs(t, "reception", "en", "/staff/patients/find", url.Values{"findName": {"lan  WALKIN"}, "findBirth": {"1975-06-07"}})
	m := regexp.MustCompile(`data-book-for="(\d+)"`).FindStringSubmatch(found)
	if m == nil {
		t.Fatalf("the walk-in is not found by name and birth date:\n%s", mainOf(found))
	}
	person := m[1]
	if status, _ := s.postAs(t, "reception", "en", "/staff/patients/find", url.Values{"findName": {"Lan Walkin"}}); status != http.StatusBadRequest {
		t.Fatalf("a name without a birth date: %d, want 400", status)
	}

	// Booked from the day page, once for a retried form.
	day := fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	page := mainOf(s.getAs(t, "reception", "en", day+"?patient="+person))
	if !strings.Contains(page, `data-desk-mode="book"`) || !strings.Contains(page, "data-desk-book") || strings.Contains(page, `value="COMPLETED"`) {
		t.Fatalf("the day page booking for the walk-in:\n%s", page)
	}
	book := url.Values{"patient": {person}, "key": {"web-desk-1"}, "next": {day + "?patient=" + person}}
	for range 2 {
		if status, body := s.postAs(t, "reception", "en", fmt.Sprintf("/staff/slots/%d/book", s.slots[1].ID), book); status != http.StatusSeeOther {
			t.Fatalf("booking from the day page: %d\n%.600s", status, body)
		}
	}
	var pid int64
	fmt.Sscan(person, &pid)
	as, err := s.svc.Appointments(ctx, pid, "", booking.Page{Limit: 10})
	must(t, err)
	if len(as) != 1 || as[0].SlotID != s.slots[1].ID || as[0].Status != booking.StatusBooked {
		t.Fatalf("the walk-in's appointments: %+v", as)
	}
	a := as[0]

	// Moved, then cancelled.
	page = mainOf(s.getAs(t, "reception", "en", fmt.Sprintf("%s?move=%d", day, a.ID)))
	if !strings.Contains(page, `data-desk-mode="move"`) || !strings.Contains(page, "data-desk-move") {
		t.Fatalf("the day page moving the appointment:\n%s", page)
	}
	move := url.Values{"slot": {fmt.Sprint(s.slots[3].ID)}, "key": {"web-desk-2"}, "next": {day}}
	if status, body := s.postAs(t, "reception", "en", fmt.Sprintf("/staff/appointments/%d/reschedule", a.ID), move); status != http.StatusSeeOther {
		t.Fatalf("moving: %d\n%.600s", status, body)
	}
	if got, _ := s.store.GetAppointment(ctx, a.ID); got.SlotID != s.slots[3].ID {
		t.Fatalf("moved to slot %d, want %d", got.SlotID, s.slots[3].ID)
	}
	if status, _ := s.postAs(t, "reception", "en", fmt.Sprintf("/staff/appointments/%d/cancel", a.ID), url.Values{"next": {day}}); status != http.StatusSeeOther {
		t.Fatalf("cancelling: %d", status)
	}
	if got, _ := s.store.GetAppointment(ctx, a.ID); got.Status != booking.StatusCancelled {
		t.Fatalf("after cancelling: %s", got.Status)
	}
	if status, _ := s.postAs(t, "patient", "en", fmt.Sprintf("/staff/appointments/%d/cancel", a.ID), url.Values{"next": {day}}); status != http.StatusUnauthorized {
		t.Fatalf("a patient at the front desk's form: %d, want 401", status)
	}

	// Each change is reception's in the audit log.
	es, err := s.store.ListAudit(ctx, booking.AuditFilter{Entity: booking.EntityAppointment, EntityID: a.ID, Limit: 10})
	must(t, err)
	if len(es) < 3 {
		t.Fatalf("audit of the appointment: %+v", es)
	}
	for _, e := range es {
		if e.ActorRole != booking.RoleReception || e.ActorID != "rita" {
			t.Fatalf("audit entry %s by %s %s, want reception rita", e.Action, e.ActorRole, e.ActorID)
		}
	}
}
