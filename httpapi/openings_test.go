package httpapi

import (
	"context"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// A waiting room through the API: an admin announces the opening of a
// schedule's slots; patients take a place before it (a retry is the same
// place); at the opening the queue is drawn and admitted from the front;
// the admitted patient books with the token of their place, the others are
// refused not-admitted, and the bad requests are 400s that change nothing.
func TestOpeningWaitingRoom(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ctx := context.Background()
	sc, err := e.db.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	opens := t0.Add(time.Hour)
	sl := e.slot(f, 10, func(s *booking.Slot) { s.ScheduleID, s.OpensAt = sc.ID, opens })
	announce := func(body any) answer {
		return e.do(call{method: "POST", path: "/api/admin/openings", token: e.admin, body: body, invalid: true})
	}
	announce(map[string]any{"scheduleId": 0, "opensAt": opens.Format(time.RFC3339)}).expect(t, 400, booking.CodeInvalidRequest)
	announce(map[string]any{"scheduleId": sc.ID}).expect(t, 400, booking.CodeInvalidRequest)
	announce(map[string]any{"scheduleId": sc.ID, "opensAt": "tomorrow"}).expect(t, 400, booking.CodeInvalidRequest)
	announce(map[string]any{"scheduleId": sc.ID, "opensAt": t0.Add(-time.Minute).Format(time.RFC3339)}).expect(t, 400, booking.CodeInvalidRequest)
	announce(map[string]any{"scheduleId": sc.ID, "opensAt": opens.Add(time.Minute).Format(time.RFC3339)}).expect(t, 400, booking.CodeInvalidRequest)
	announce(map[string]any{"scheduleId": sc.ID + 99, "opensAt": opens.Format(time.RFC3339)}).expect(t, 404, booking.CodeNotFound)
	var o openingView
	announce(map[string]any{"scheduleId": sc.ID, "opensAt": opens.Format(time.RFC3339)}).expect(t, 201).decode(t, &o)
	if o.ID == 0 || o.Seed != "" || len(o.SeedCommitment) != 64 || !o.OpensAt.Equal(opens) {
		t.Fatalf("announced %+v", o)
	}
	announce(map[string]any{"scheduleId": sc.ID, "opensAt": opens.Format(time.RFC3339)}).expect(t, 409, booking.CodeConflict)

	queue := fmt.Sprintf("/api/openings/%d/queue", o.ID)
	ps := []booking.Patient{e.patient(), e.patient(), e.patient()}
	toks := make([]string, len(ps))
	for i, p := range ps {
		toks[i] = e.patientToken(p.ID)
		var pl booking.OpeningPlace
		e.do(call{method: "POST", path: queue, token: toks[i]}).expect(t, 201).decode(t, &pl)
		if !pl.PreQueue || pl.Drawn || pl.Admitted || pl.Queued != i+1 || pl.ExpectedWaitSeconds < 3600 {
			t.Fatalf("place %d: %+v", i, pl)
		}
	}
	var again booking.OpeningPlace
	e.do(call{method: "POST", path: queue, token: toks[0]}).expect(t, 200).decode(t, &again)
	if again.Queued != 3 {
		t.Fatalf("a retry took another place: %+v", again)
	}
	e.do(call{method: "POST", path: queue, token: e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: "/api/openings/999/queue", token: toks[0]}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: queue, token: e.patientToken(e.patient().ID)}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: "/api/openings/x/queue", token: toks[0], invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// Before the opening nobody books; at it, one tick draws and admits.
	book := func(tok, key, admission string) answer {
		h := map[string]string{"Idempotency-Key": key}
		if admission != "" {
			h[AdmissionHeader] = admission
		}
		return e.do(call{method: "POST", path: "/api/appointments", token: tok, header: h, body: slotBody(sl.ID)})
	}
	book(toks[0], "early", "").expect(t, 409, booking.CodeNotOpenYet)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/openings/%d/draw", o.ID)}).expect(t, 409, booking.CodeNotOpenYet)
	e.clock.set(opens.Add(time.Second))
	if err := e.svc.AdmitDue(ctx); err != nil {
		t.Fatal(err)
	}
	var admitted, waiting int = -1, -1
	var token string
	for i := range ps {
		var pl booking.OpeningPlace
		e.do(call{method: "GET", path: queue, token: toks[i]}).expect(t, 200).decode(t, &pl)
		switch {
		case !pl.Drawn || pl.Position == 0:
			t.Fatalf("not drawn at the opening: %+v", pl)
		case pl.Admitted && pl.Token != "":
			admitted, token = i, pl.Token
		case !pl.Admitted:
			waiting = i
		}
	}
	if admitted < 0 {
		t.Fatal("nobody admitted at the opening")
	}
	book(toks[admitted], "in", token).expect(t, 201)
	if waiting >= 0 {
		book(toks[waiting], "not-yet", "").expect(t, 409, booking.CodeNotAdmitted)
		book(toks[waiting], "borrowed", token).expect(t, 409, booking.CodeNotAdmitted)
	}
	book(e.patientToken(e.patient().ID), "forged", "1.2.3").expect(t, 409, booking.CodeNotAdmitted)
	// An admin books for a caller without a place in the queue.
	e.do(call{method: "POST", path: "/api/appointments", token: e.admin, header: map[string]string{"Idempotency-Key": "desk"},
		body: map[string]any{"slotId": sl.ID, "patientId": e.patient().ID}}).expect(t, 201)

	var seen openingView
	e.do(call{method: "GET", path: fmt.Sprintf("/api/openings/%d", o.ID)}).expect(t, 200).decode(t, &seen)
	seed, _ := hex.DecodeString(seen.Seed)
	if len(seed) != booking.SeedSize || booking.Commit(seed) != seen.SeedCommitment || seen.Queued != 3 || seen.AdmittedThrough < 1 {
		t.Fatalf("the opening after its draw: %+v", seen)
	}
	var rep booking.OpeningReport
	e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/openings/%d/report", o.ID), token: e.admin}).expect(t, 200).decode(t, &rep)
	if rep.Places != 10 || rep.Sold != 2 || rep.People != 3 || rep.ServedFromQueue != 1 || rep.Requests.Total < 4 ||
		rep.Requests.Outcomes[string(booking.CodeNotAdmitted)] < 1 || rep.Requests.Outcomes["created"] != 2 {
		t.Fatalf("report %+v", rep)
	}
	e.do(call{method: "GET", path: "/api/admin/openings/999/report", token: e.admin}).expect(t, 404, booking.CodeNotFound)
	// The pre-queue's draw, checked as slotd verify-draw does; a changed
	// list or seed does not match.
	var d booking.Draw
	e.do(call{method: "GET", path: fmt.Sprintf("/api/openings/%d/draw", o.ID)}).expect(t, 200).decode(t, &d)
	if len(d.Order) != 3 || d.OpeningID != o.ID || booking.VerifyDraw(d, o.SeedCommitment) != nil {
		t.Fatalf("draw %+v: %v", d, booking.VerifyDraw(d, o.SeedCommitment))
	}
	swapped := d
	swapped.Order = []int64{d.Order[1], d.Order[0], d.Order[2]}
	if booking.VerifyDraw(swapped, "") == nil {
		t.Fatal("a changed order verified")
	}
	var page struct{ Items []openingView }
	e.do(call{method: "GET", path: "/api/openings?limit=5"}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != o.ID {
		t.Fatalf("openings %+v", page)
	}
}

// A slot added to a schedule (POST /api/admin/slots with scheduleId) is
// covered by the schedule's opening; another doctor's schedule is 404, a
// bad id 400, and neither creates a slot.
func TestSlotOfASchedule(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ctx := context.Background()
	mk := func(doctorID int64) booking.Schedule {
		sc, err := e.db.CreateSchedule(ctx, booking.Schedule{DoctorID: doctorID, Weekdays: []time.Weekday{time.Monday},
			StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	mine, theirs := mk(f.doctor.ID), mk(f.doctor2.ID)
	opens := t0.Add(time.Hour)
	body := func(scheduleID any) map[string]any {
		return map[string]any{"doctorId": f.doctor.ID, "startAt": t0.Add(50 * time.Hour).Format(time.RFC3339),
			"durationMinutes": 30, "capacity": 5, "opensAt": opens.Format(time.RFC3339), "scheduleId": scheduleID}
	}
	create := func(b map[string]any) answer {
		return e.do(call{method: "POST", path: "/api/admin/slots", token: e.admin, body: b, invalid: true})
	}
	create(body(0)).expect(t, 400, booking.CodeInvalidRequest)
	create(body("x")).expect(t, 400, booking.CodeInvalidRequest)
	create(body(theirs.ID)).expect(t, 404, booking.CodeNotFound)
	create(body(theirs.ID+99)).expect(t, 404, booking.CodeNotFound)
	if n := countSlots(t, e, f.doctor.ID); n != 0 {
		t.Fatalf("refused requests created %d slots", n)
	}
	var sl struct {
		ID int64 `json:"id"`
	}
	create(body(mine.ID)).expect(t, 201).decode(t, &sl)
	got, err := e.db.GetSlot(ctx, sl.ID)
	if err != nil || got.ScheduleID != mine.ID {
		t.Fatalf("slot %+v (%v): want schedule %d", got, err, mine.ID)
	}
	e.do(call{method: "POST", path: "/api/admin/openings", token: e.admin,
		body: map[string]any{"scheduleId": mine.ID, "opensAt": opens.Format(time.RFC3339)}}).expect(t, 201)
}

// countSlots counts the doctor's slots over the days the tests use.
func countSlots(t *testing.T, e *env, doctorID int64) int {
	t.Helper()
	sls, err := e.db.ListSlots(context.Background(), doctorID, t0, t0.Add(30*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return len(sls)
}
