package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
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

// The printable day list says where each person stands on the day:
// booked, arrived, called, in consultation, done, no-show — the queue's
// steps on the doctor's today — and the front desk may print it.
func TestDayListStates(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	s := &pagesSite{site: newSite(t, withClock(now))}
	ctx := context.Background()
	admin := booking.Actor{Role: booking.RoleAdmin, ID: "admin"}
	book := func(i, slot int) booking.Appointment {
		p := s.patients[i]
		res := s.svc.Book(booking.WithActor(ctx, booking.Actor{Role: "patient", ID: fmt.Sprint(p.ID)}), p.ID, s.slots[slot].ID, fmt.Sprint("list-", i))
		must(t, res.Err)
		return res.Appointment
	}
	a := book(0, 2)
	book(1, 3) // booked, never arrives
	clock.Store(a.StartAt.Add(-5 * time.Minute).UnixNano())
	_, _, err := s.svc.CheckIn(ctx, admin, a.ID, "")
	must(t, err)
	list := fmt.Sprintf("/staff/doctors/%d/days/%s?print=1", s.doctor.ID, s.tomorrow)
	states := func() map[string]bool {
		t.Helper()
		page := mainOf(s.getAs(t, "reception", "en", list))
		got := map[string]bool{}
		for _, m := range regexp.MustCompile(`data-state="([^"]+)"`).FindAllStringSubmatch(page, -1) {
			got[m[1]] = true
		}
		return got
	}
	if got := states(); !got[booking.DayArrived] || !got[booking.DayBooked] {
		t.Fatalf("before a call: %v", got)
	}
	_, err = s.svc.CallNext(ctx, admin, s.doctor.ID)
	must(t, err)
	if got := states(); !got[booking.DayCalled] || got[booking.DayArrived] {
		t.Fatalf("after the call: %v", got)
	}
	_, err = s.svc.StepQueue(ctx, admin, a.ID, booking.QueueActionStart)
	must(t, err)
	if got := states(); !got[booking.DayInConsultation] {
		t.Fatalf("after the start: %v", got)
	}
	if page := mainOf(s.getAs(t, "reception", "fr", list)); !strings.Contains(page, "en consultation") || !strings.Contains(page, i18n.New("fr").T("booked")) {
		t.Fatalf("the list in French:\n%s", page)
	}
}

// TestDeskWalkIn: on a full slot of the doctor's today, the front desk
// booking for a person is offered a walk-in with a reason; the place is
// added beyond the capacity once for a retried form, and the day page and
// the printable list mark it. On another day, no such form.
func TestDeskWalkIn(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	s := &pagesSite{site: newSite(t, withClock(now))}
	ctx := context.Background()
	full, person := s.slots[0], s.patients[1] // slots[0] holds one place, taken
	day := fmt.Sprintf("/staff/doctors/%d/days/%s", s.doctor.ID, s.tomorrow)
	mode := day + "?patient=" + itoa(person.ID)
	if page := mainOf(s.getAs(t, "reception", "en", mode)); strings.Contains(page, "data-desk-walk-in") {
		t.Fatalf("a walk-in offered the day before:\n%s", page)
	}
	clock.Store(full.StartAt.Add(-5 * time.Minute).UnixNano())
	page := mainOf(s.getAs(t, "reception", "en", mode))
	if !strings.Contains(page, "data-desk-walk-in") || !strings.Contains(page, fmt.Sprintf("/staff/slots/%d/walk-in", full.ID)) {
		t.Fatalf("no walk-in offered on the full slot of today:\n%s", page)
	}
	path := fmt.Sprintf("/staff/slots/%d/walk-in", full.ID)
	form := url.Values{"patient": {itoa(person.ID)}, "key": {"web-walk-in"}, "next": {mode}, "reason": {" "}}
	if status, _ := s.postAs(t, "reception", "en", path, form); status != http.StatusBadRequest {
		t.Fatalf("a walk-in without a reason: %d, want 400", status)
	}
	form.Set("reason", "fever, came without booking")
	for range 2 {
		if status, body := s.postAs(t, "reception", "en", path, form); status != http.StatusSeeOther {
			t.Fatalf("the walk-in: %d\n%.600s", status, body)
		}
	}
	as, err := s.svc.Appointments(ctx, person.ID, "", booking.Page{Limit: 10})
	must(t, err)
	if len(as) != 1 || !as[0].WalkIn || as[0].SlotID != full.ID {
		t.Fatalf("the walk-in's appointments: %+v", as)
	}
	if got, _ := s.store.GetSlot(ctx, full.ID); got.BookedCount != 2 {
		t.Fatalf("the slot after the walk-in: %+v", got)
	}
	if page := mainOf(s.getAs(t, "reception", "en", day)); !strings.Contains(page, "data-walk-in") {
		t.Fatalf("the day page does not mark the walk-in:\n%s", page)
	}
	if page := mainOf(s.getAs(t, "reception", "fr", day+"?print=1")); !strings.Contains(page, "fever, came without booking") {
		t.Fatalf("the printable list does not mark the walk-in:\n%s", page)
	}
	rows, err := csv.NewReader(strings.NewReader(s.getAs(t, "reception", "en", day+"?csv=1"))).ReadAll()
	must(t, err)
	marked := 0
	for _, r := range rows[1:] {
		if walkIn := r[len(r)-1]; walkIn != strconv.FormatBool(r[6] == itoa(person.ID)) { // patient_id
			marked = -1
		} else if walkIn == "true" {
			marked++
		}
	}
	if h := rows[0]; h[len(h)-1] != "walk_in" || len(rows) != 3 || marked != 1 {
		t.Fatalf("the day CSV does not mark the walk-in: %q", rows)
	}
	if status, _ := s.postAs(t, "patient", "en", path, form); status != http.StatusUnauthorized {
		t.Fatalf("a patient at the walk-in form: %d, want 401", status)
	}
}
