package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

func queueCallOf(token string, doctorID int64) call {
	return call{method: "POST", path: fmt.Sprintf("/api/admin/doctors/%d/queue/call", doctorID), token: token, body: map[string]any{}}
}

func queueStepOf(token string, id int64, action string) call {
	return call{method: "POST", path: fmt.Sprintf("/api/admin/appointments/%d/%s", id, action), token: token, body: map[string]any{}}
}

// Every answer of the console's endpoints and of GET .../queue: the
// doctor's own queue, another doctor's ids 404, patients 403, bad ids
// 400, nobody waiting 409 queue-empty, a step on anyone but the current
// call 409 not-called, and the patient's position as the calls go.
func TestQueueEndpoints(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 4)
	doc := e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))
	doc2 := e.token(auth.RoleDoctor, fmt.Sprint(f.doctor2.ID))
	e.clock.set(sl.StartAt.Add(-20 * time.Minute))

	e.do(queueCallOf(doc, f.doctor.ID)).expect(t, 409, booking.CodeQueueEmpty)
	e.do(queueCallOf(e.admin, f.doctor.ID)).expect(t, 409, booking.CodeQueueEmpty)
	e.do(queueCallOf(doc2, f.doctor.ID)).expect(t, 404, booking.CodeNotFound)
	e.do(queueCallOf(e.admin, 999999)).expect(t, 404, booking.CodeNotFound)
	bad := queueCallOf(e.admin, 0)
	bad.path, bad.invalid = "/api/admin/doctors/abc/queue/call", true
	e.do(bad).expect(t, 400, booking.CodeInvalidRequest)

	var as []booking.Appointment
	var tokens []string
	for i := range 3 {
		p := e.patient()
		tok := e.patientToken(p.ID)
		var a booking.Appointment
		e.do(book(tok, fmt.Sprintf("q-%d", i), slotBody(sl.ID))).expect(t, 201).decode(t, &a)
		e.do(checkInCall(e.admin, a.ID, map[string]any{})).expect(t, 200)
		as, tokens = append(as, a), append(tokens, tok)
	}
	e.do(queueCallOf(tokens[0], f.doctor.ID)).expect(t, 403, booking.CodeForbidden)

	position := func(i int) (st struct {
		Step             string
		Ahead            int
		EstimatedMinutes int
		Called           *struct{ QueueNumber int }
		Room             *string
	}) {
		e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d/queue", as[i].ID), token: tokens[i]}).expect(t, 200).decode(t, &st)
		return st
	}
	// 30-minute slot of 4 places: 7 minutes each, two ahead.
	if p := position(2); p.Step != booking.QueueWaiting || p.Ahead != 2 || p.EstimatedMinutes != 14 || p.Called != nil {
		t.Fatalf("before any call: %+v", p)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d/queue", as[0].ID), token: tokens[1]}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d/queue", as[0].ID), token: doc2}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d/queue", as[0].ID), token: doc}).expect(t, 200)

	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/doctors/%d", f.doctor.ID), token: e.admin,
		body: map[string]any{"consultingRoom": "Room 3"}}).expect(t, 200)
	if p := position(0); p.Room != nil {
		t.Fatalf("a waiting patient is given the room: %+v", p)
	}
	var tk queueTicket
	e.do(queueCallOf(doc, f.doctor.ID)).expect(t, 200).decode(t, &tk)
	if tk.AppointmentID != as[0].ID || tk.Step != booking.QueueCalled || tk.Calls != 1 || tk.CallSeq != 1 {
		t.Fatalf("call: %+v", tk)
	}
	if p := position(0); p.Step != booking.QueueCalled || p.Room == nil || *p.Room != "Room 3" {
		t.Fatalf("the called one: %+v", p)
	}
	if p := position(2); p.Ahead != 1 || p.Called == nil || p.Called.QueueNumber != as[0].QueueNumber || p.Room != nil {
		t.Fatalf("after a call: %+v", p)
	}

	for _, action := range []string{"recall", "skip", "start"} {
		e.do(queueStepOf(doc, as[1].ID, action)).expect(t, 409, booking.CodeNotCalled)
		e.do(queueStepOf(doc2, as[0].ID, action)).expect(t, 404, booking.CodeNotFound)
		e.do(queueStepOf(tokens[0], as[0].ID, action)).expect(t, 403, booking.CodeForbidden)
		e.do(queueStepOf(e.admin, 999999, action)).expect(t, 404, booking.CodeNotFound)
	}
	e.do(queueStepOf(doc, as[0].ID, "recall")).expect(t, 200).decode(t, &tk)
	if tk.Calls != 2 || tk.Step != booking.QueueCalled {
		t.Fatalf("recall: %+v", tk)
	}
	e.do(queueStepOf(e.admin, as[0].ID, "skip")).expect(t, 200).decode(t, &tk)
	if tk.Step != booking.QueueSkipped {
		t.Fatalf("skip: %+v", tk)
	}
	e.do(queueCallOf(doc, f.doctor.ID)).expect(t, 200).decode(t, &tk)
	if tk.AppointmentID != as[1].ID {
		t.Fatalf("after a skip the next is %d, want %d", tk.AppointmentID, as[1].ID)
	}
	e.do(queueStepOf(doc, as[1].ID, "start")).expect(t, 200).decode(t, &tk)
	if tk.Step != booking.QueueStarted || tk.StartedAt == nil {
		t.Fatalf("start: %+v", tk)
	}
	if p := position(0); p.Step != booking.QueueSkipped || p.Ahead != 1 {
		t.Fatalf("the skipped one, back after 3 calls: %+v", p)
	}
	e.clock.set(sl.StartAt.Add(5 * time.Minute))
	e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/appointments/%d/complete", as[1].ID), token: e.admin, body: map[string]any{}}).expect(t, 200)
	if p := position(1); p.Step != "NOT_IN_QUEUE" {
		t.Fatalf("completed: %+v", p)
	}
}

// The estimate follows the doctor's pace: with two consultations
// completed it counts the slots' shares; with three, the median of their
// lengths, answered as paceMinutes.
func TestQueueEstimateAtPace(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 6) // 30 minutes for 6 places: 5 minutes each
	doc := e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))
	e.clock.set(sl.StartAt.Add(-20 * time.Minute))
	var as []booking.Appointment
	var tokens []string
	for i := range 5 {
		p := e.patient()
		tok := e.patientToken(p.ID)
		var a booking.Appointment
		e.do(book(tok, fmt.Sprintf("pace-%d", i), slotBody(sl.ID))).expect(t, 201).decode(t, &a)
		e.do(checkInCall(e.admin, a.ID, map[string]any{})).expect(t, 200)
		as, tokens = append(as, a), append(tokens, tok)
	}
	type position struct {
		Step             string
		Ahead            int
		EstimatedMinutes int
		PaceMinutes      *int
	}
	positionOf := func(i int) (st position) {
		e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d/queue", as[i].ID), token: tokens[i]}).expect(t, 200).decode(t, &st)
		return st
	}
	now := sl.StartAt
	for i, length := range []time.Duration{2 * time.Minute, 6 * time.Minute, 3 * time.Minute} {
		e.clock.set(now)
		var tk queueTicket
		e.do(queueCallOf(doc, f.doctor.ID)).expect(t, 200).decode(t, &tk)
		e.do(queueStepOf(doc, tk.AppointmentID, "start")).expect(t, 200)
		now = now.Add(length)
		e.clock.set(now)
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/appointments/%d/complete", tk.AppointmentID), token: e.admin, body: map[string]any{}}).expect(t, 200)
		if i == 1 {
			// Two completed, nobody called: Nos. 3 and 4 are ahead of No. 5.
			if p := positionOf(4); p.Ahead != 2 || p.EstimatedMinutes != 10 || p.PaceMinutes != nil {
				t.Fatalf("two completed: %+v, want 2 ahead at the slot's 5 minutes, no pace", p)
			}
		}
	}
	e.do(queueCallOf(doc, f.doctor.ID)).expect(t, 200)
	// The median of 2, 6 and 3 minutes is 3: the one called, then No. 5.
	p := positionOf(4)
	if p.Step != booking.QueueWaiting || p.Ahead != 0 || p.EstimatedMinutes != 3 || p.PaceMinutes == nil || *p.PaceMinutes != 3 {
		t.Fatalf("three completed: %+v, want next, about 3 minutes at a pace of 3", p)
	}
}
