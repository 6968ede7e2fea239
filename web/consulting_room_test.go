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
)

// The consulting room on the boards: with none set a called number stands
// alone (the doctor's name says where); once set, the doctor's board and
// the department's show it beside the called number, on the page and in
// their streams, and the called patient's line names it. The other doctor
// of the department, without a room, keeps their name alone.
func TestBoardsShowConsultingRoom(t *testing.T) {
	var clock atomic.Int64
	s := newSite(t, withClock(func() time.Time { return time.Unix(0, clock.Load()) }))
	clock.Store(s.slots[2].StartAt.Add(-10 * time.Minute).UnixNano())
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: "admin", ID: "test"})
	admin := booking.Actor{Role: "admin", ID: "test"}
	var as []booking.Appointment
	for i, p := range s.patients[:2] {
		r := s.svc.Book(ctx, p.ID, s.slots[2+i].ID, fmt.Sprintf("room-%d", i))
		must(t, r.Err)
		_, _, err := s.svc.CheckIn(ctx, admin, r.Appointment.ID, "")
		must(t, err)
		as = append(as, r.Appointment)
	}
	if st, body := s.postAs(t, "doctor", "en", fmt.Sprintf("/queue/doctors/%d/call", s.doctor.ID), url.Values{}); st != 303 {
		t.Fatalf("call: %d\n%s", st, mainOf(body))
	}
	doctorBoard := fmt.Sprintf("/display/doctors/%d?key=%s", s.doctor.ID, s.pages.displayToken(s.doctor.ID))
	deptPath := fmt.Sprintf("/display/departments/%d", s.dept.ID)
	deptBoard := deptPath + "?key=" + s.pages.departmentToken(s.dept.ID)
	line := fmt.Sprintf("/appointments/%d/queue", as[0].ID)
	called := fmt.Sprintf("No. %d", as[0].QueueNumber)

	for _, u := range []string{doctorBoard, deptBoard} {
		if st, page := s.getQueue(t, "", 0, u); st != 200 || !strings.Contains(page, called) || strings.Contains(page, "board-room") {
			t.Fatalf("%s without a room: %d\n%s", u, st, mainOf(page))
		}
	}
	if _, l := s.getQueue(t, "patient", s.patients[0].ID, line); !strings.Contains(l, "please go to the doctor&#39;s room.") {
		t.Fatalf("the called line without a room: %q", l)
	}

	room := "  Room 3 " // trimmed
	if _, err := s.svc.UpdateDoctor(ctx, s.doctor.ID, booking.DoctorUpdate{ProfileUpdate: booking.ProfileUpdate{ConsultingRoom: &room}}); err != nil {
		t.Fatal(err)
	}
	beside := called + `</span> <span class="board-room">→ Room 3</span>`
	if st, page := s.getQueue(t, "", 0, doctorBoard); st != 200 || !strings.Contains(page, beside) {
		t.Fatalf("the doctor's board: %d\n%s", st, mainOf(page))
	}
	st, page := s.getQueue(t, "", 0, deptBoard)
	if st != 200 || !strings.Contains(page, beside) || !strings.Contains(page, `<span class="board-room">Room 3</span> Dr Camille Martin`) ||
		strings.Count(page, "Room 3") != 2 || !strings.Contains(page, `class="dept-doctor">Dr Wei Zhang</th>`) {
		t.Fatalf("the department's board: %d\n%s", st, mainOf(page))
	}
	if _, l := s.getQueue(t, "patient", s.patients[0].ID, line); !strings.Contains(l, "You are called: please go to Room 3.") {
		t.Fatalf("the called line: %q", l)
	}
	if _, l := s.getQueue(t, "patient", s.patients[1].ID, fmt.Sprintf("/appointments/%d/queue", as[1].ID)); strings.Contains(l, "Room 3") {
		t.Fatalf("a waiting patient is sent to the room: %q", l)
	}

	sctx, cancel := context.WithCancel(context.Background())
	defer cancel() // before the server closes: it waits for its streams
	if b := nextBoard(t, boardEvents(t, sctx, s.url+strings.Replace(doctorBoard, "?", "/events?", 1))); b.Room != "Room 3" || b.Called == nil {
		t.Fatalf("the doctor's board's event: %+v", b)
	}
	d := nextBoard(t, streamEvents[departmentBoardView](t, sctx, s.url+deptPath+"/events?key="+s.pages.departmentToken(s.dept.ID)))
	if len(d.Doctors) != 2 || d.Doctors[0].Room != "Room 3" || d.Doctors[1].Room != "" {
		t.Fatalf("the department's board's event: %+v", d)
	}
}
