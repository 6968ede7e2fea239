package web

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// The department's board: both doctors of the department on one screen
// with their calls, closed without its own key (not a doctor's, not
// another department's), ?after= checked and paging the doctors, its
// stream following a call of either doctor and giving a reconnect the
// whole state; staff find its link on the catalog page.
func TestDepartmentBoard(t *testing.T) {
	var clock atomic.Int64
	s := newSite(t, withClock(func() time.Time { return time.Unix(0, clock.Load()) }))
	clock.Store(s.slots[2].StartAt.Add(-10 * time.Minute).UnixNano())
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: "admin", ID: "test"})
	admin := booking.Actor{Role: "admin", ID: "test"}
	var as []booking.Appointment
	for i, p := range s.patients[:2] {
		r := s.svc.Book(ctx, p.ID, s.slots[2+i].ID, fmt.Sprintf("dept-%d", i))
		must(t, r.Err)
		_, _, err := s.svc.CheckIn(ctx, admin, r.Appointment.ID, "")
		must(t, err)
		as = append(as, r.Appointment)
	}
	path := fmt.Sprintf("/display/departments/%d", s.dept.ID)
	key := s.pages.departmentToken(s.dept.ID)
	for what, u := range map[string]string{
		"no key":                  path,
		"a wrong key":             path + "?key=wrong",
		"the doctor's key":        path + "?key=" + s.pages.displayToken(s.dept.ID),
		"another department's":    fmt.Sprintf("/display/departments/%d?key=%s", s.dept.ID+1, key),
		"events without a key":    path + "/events",
		"a doctor's session only": "",
	} {
		role, id := "", int64(0)
		if u == "" {
			u, role, id = path, "doctor", s.doctor.ID
		}
		if st, _ := s.getQueue(t, role, id, u); st != 404 {
			t.Errorf("%s: %d, want 404", what, st)
		}
	}
	if st, _ := s.getQueue(t, "", 0, fmt.Sprintf("/display/departments/999?key=%s", s.pages.departmentToken(999))); st != 404 {
		t.Errorf("an unknown department: %d, want 404", st)
	}
	if st, body := s.getQueue(t, "", 0, path+"?key="+key+"&after=x"); st != 400 {
		t.Errorf("?after=x: %d, want 400\n%s", st, mainOf(body))
	}
	st, page := s.getQueue(t, "", 0, path+"?key="+key)
	if st != 200 || !strings.Contains(page, "Cardiology") || !strings.Contains(page, "Dr Camille Martin") || !strings.Contains(page, "Dr Wei Zhang") ||
		!strings.Contains(page, "No. 1") || strings.Contains(page, "Anh Nguyen") {
		t.Fatalf("board: %d\n%s", st, mainOf(page))
	}
	if st, page := s.getQueue(t, "", 0, fmt.Sprintf("%s?key=%s&after=%d", path, key, s.doctor.ID)); st != 200 || strings.Contains(page, "Dr Camille Martin") || !strings.Contains(page, "Dr Wei Zhang") {
		t.Fatalf("the screen after the first doctor: %d\n%s", st, mainOf(page))
	}
	if st, page := s.getQueue(t, "staff", 0, "/staff"); st != 200 || !strings.Contains(page, path+"?key="+key) {
		t.Fatalf("the catalog page does not link the board: %d\n%s", st, mainOf(page))
	}

	sctx, cancel := context.WithCancel(context.Background())
	events := streamEvents[departmentBoardView](t, sctx, s.url+path+"/events?key="+key)
	b := nextBoard(t, events)
	if len(b.Doctors) != 2 || b.Doctors[0].DoctorID != s.doctor.ID || b.Doctors[0].Called != nil || len(b.Doctors[0].Next) != 2 || b.Doctors[0].Next[0].Name != "A. N***" {
		t.Fatalf("first event: %+v", b)
	}
	if st, body := s.postAs(t, "doctor", "en", fmt.Sprintf("/queue/doctors/%d/call", s.doctor.ID), url.Values{}); st != 303 {
		t.Fatalf("call: %d\n%s", st, mainOf(body))
	}
	b = nextBoard(t, events)
	if c := b.Doctors[0].Called; c == nil || c.Number != as[0].QueueNumber || c.Name != "A. N***" || len(b.Doctors[0].Next) != 1 {
		t.Fatalf("after the call: %+v", b)
	}
	cancel()
	actx, acancel := context.WithCancel(context.Background())
	defer acancel() // before the server closes: it waits for its streams
	again := streamEvents[departmentBoardView](t, actx, s.url+path+"/events?key="+key)
	if b := nextBoard(t, again); b.Doctors[0].Called == nil || b.Doctors[0].Called.Number != as[0].QueueNumber {
		t.Fatalf("on reconnect: %+v", b)
	}
}

// TestDepartmentBoardPages: a department with more doctors than a screen
// holds pages them, each screen from the last doctor of the one before.
func TestDepartmentBoardPages(t *testing.T) {
	s := newSite(t)
	ctx := context.Background()
	dep, err := s.store.CreateDepartment(ctx, booking.Department{Name: "Pediatrics"})
	must(t, err)
	var ids []int64
	for i := range service.DepartmentBoardDoctors + 2 {
		d, err := s.store.CreateDoctor(ctx, booking.Doctor{Name: fmt.Sprintf("Dr %c", 'A'+i), DepartmentID: dep.ID, TimeZone: "Europe/Paris"})
		must(t, err)
		ids = append(ids, d.ID)
	}
	b, err := s.svc.DepartmentQueueBoard(ctx, dep.ID, 0)
	must(t, err)
	if len(b.Doctors) != service.DepartmentBoardDoctors || b.NextAfter != ids[service.DepartmentBoardDoctors-1] {
		t.Fatalf("first screen: %d doctors, next after %d", len(b.Doctors), b.NextAfter)
	}
	b, err = s.svc.DepartmentQueueBoard(ctx, dep.ID, b.NextAfter)
	must(t, err)
	if len(b.Doctors) != 2 || b.NextAfter != 0 || b.Doctors[1].DoctorID != ids[len(ids)-1] {
		t.Fatalf("second screen: %+v", b)
	}
	if _, err := s.svc.DepartmentQueueBoard(ctx, dep.ID+100, 0); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("an unknown department: %v", err)
	}
}
