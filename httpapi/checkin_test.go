package httpapi

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// checkInCounter counts the Service's check-ins by who and outcome.
type checkInCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *checkInCounter) Booked(string, bool, time.Duration) {}
func (c *checkInCounter) Batch(int, time.Duration)           {}
func (c *checkInCounter) CheckIn(by, outcome string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[by+" "+outcome]++
}

func checkInCall(token string, id int64, body any) call {
	return call{method: "POST", path: fmt.Sprintf("/api/appointments/%d/check-in", id), token: token, body: body}
}

// Every answer of POST /api/appointments/{id}/check-in.
func TestCheckInEndpoint(t *testing.T) {
	counter := &checkInCounter{n: map[string]int{}}
	e := newEnv(t, withService(func(o *service.Options) { o.Observer = counter }))
	f := e.fixture()
	sl := e.slot(f, 3)
	pa, pb := e.patient(), e.patient()
	ta, tb := e.patientToken(pa.ID), e.patientToken(pb.ID)
	var appt booking.Appointment
	e.do(book(ta, "c-1", slotBody(sl.ID))).expect(t, 201).decode(t, &appt)
	codes := booking.NewCheckInCodes(e.signer.DeriveKey(booking.CheckInKeyPurpose))
	code := e.checkInCode(appt.ID)
	body := map[string]any{"code": code}
	var read struct{ CheckInCode string }
	e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d", appt.ID), token: ta}).expect(t, 200).decode(t, &read)
	if read.CheckInCode != code {
		t.Fatalf("GET gives the code %q, want %q", read.CheckInCode, code)
	}

	// Malformed requests: 400, nothing spent or changed.
	e.clock.set(sl.StartAt.Add(-10 * time.Minute))
	e.do(checkInCall(ta, appt.ID, map[string]any{})).expect(t, 400, booking.CodeInvalidRequest)
	tooLong := checkInCall(ta, appt.ID, map[string]any{"code": strings.Repeat("A", 33)})
	tooLong.invalid = true
	e.do(tooLong).expect(t, 400, booking.CodeInvalidRequest)
	unknown := checkInCall(ta, appt.ID, map[string]any{"code": code, "patientId": pa.ID})
	unknown.invalid = true
	e.do(unknown).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/appointments/x/check-in", token: ta, body: body, invalid: true}).expect(t, 400)
	// Who: nobody, another patient, another doctor.
	e.do(checkInCall("", appt.ID, body)).expect(t, 401)
	e.do(checkInCall(tb, appt.ID, body)).expect(t, 404, booking.CodeNotFound)
	e.do(checkInCall(ta, 999999, body)).expect(t, 404, booking.CodeNotFound)
	e.do(checkInCall(e.token(auth.RoleDoctor, fmt.Sprint(f.doctor2.ID)), appt.ID, map[string]any{})).expect(t, 404, booking.CodeNotFound)
	// A wrong code; the window's sides.
	e.do(checkInCall(ta, appt.ID, map[string]any{"code": codes.Display(appt.ID + 1)})).expect(t, 422, booking.CodeBadCheckInCode)
	e.do(checkInCall(ta, appt.ID, map[string]any{"code": "not a code!"})).expect(t, 422, booking.CodeBadCheckInCode)
	e.clock.set(sl.StartAt.Add(-2 * time.Hour))
	p := e.do(checkInCall(ta, appt.ID, body)).expect(t, 409, booking.CodeCheckInTooEarly).problem(t)
	if p.OpensAt == "" {
		t.Fatalf("too early without opensAt: %+v", p)
	}
	e.clock.set(sl.StartAt.Add(20 * time.Minute))
	e.do(checkInCall(e.admin, appt.ID, map[string]any{})).expect(t, 409, booking.CodeCheckInClosed)

	// Inside the window: the patient, then the doctor again (200, same).
	e.clock.set(sl.StartAt.Add(-30 * time.Minute))
	var got, again booking.Appointment
	e.do(checkInCall(ta, appt.ID, map[string]any{"code": strings.ToLower(code)})).expect(t, 200).decode(t, &got)
	if got.Status != booking.StatusArrived || got.QueueNumber != appt.QueueNumber {
		t.Fatalf("checked in: %+v", got)
	}
	e.do(checkInCall(e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID)), appt.ID, map[string]any{})).expect(t, 200).decode(t, &again)
	if again.Status != booking.StatusArrived || !again.UpdatedAt.Equal(got.UpdatedAt) {
		t.Fatalf("repeat: %+v", again)
	}
	var mine struct {
		booking.Appointment
		CheckInCode string
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d", appt.ID), token: ta}).expect(t, 200).decode(t, &mine)
	if mine.Status != booking.StatusArrived || mine.CheckInCode != "" {
		t.Fatalf("GET after check-in: %+v", mine)
	}
	// Completed by the doctor once started; then no check-in.
	e.clock.set(sl.StartAt.Add(time.Minute))
	e.do(call{method: "POST", path: fmt.Sprintf("/api/doctor/appointments/%d/complete", appt.ID), token: e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))}).expect(t, 200)
	e.do(checkInCall(e.admin, appt.ID, map[string]any{})).expect(t, 409, booking.CodeInvalidTransition)

	for k, want := range map[string]int{"patient arrived": 1, "staff repeat": 1, "patient bad-check-in-code": 2, "patient not-found": 2,
		"staff not-found": 1, "patient check-in-too-early": 1, "staff check-in-closed": 1, "staff invalid-transition": 1} {
		if counter.n[k] != want {
			t.Errorf("counted %q %d times, want %d (all: %v)", k, counter.n[k], want, counter.n)
		}
	}
}

// A patient's wrong codes are rate-limited like bookings: guessing stops.
func TestCheckInRateLimited(t *testing.T) {
	e := newEnv(t, withService(func(o *service.Options) { o.BookingRate, o.BookingWindow = 3, time.Minute }))
	f := e.fixture()
	sl := e.slot(f, 1)
	pa := e.patient()
	ta := e.patientToken(pa.ID)
	var appt booking.Appointment
	e.do(book(ta, "r-1", slotBody(sl.ID))).expect(t, 201).decode(t, &appt)
	e.clock.set(sl.StartAt)
	wrong := 0
	for {
		a := e.do(checkInCall(ta, appt.ID, map[string]any{"code": "AAAA-AAAA"}))
		if a.status == 429 {
			break
		}
		a.expect(t, 422, booking.CodeBadCheckInCode)
		if wrong++; wrong > 3 {
			t.Fatalf("%d wrong codes answered, the limit is 3 attempts a minute", wrong)
		}
	}
	// Limited, the right code waits too.
	e.do(checkInCall(ta, appt.ID, map[string]any{"code": e.checkInCode(appt.ID)})).expect(t, 429, booking.CodeRateLimited)
}

// checkInCode is appointment id's check-in code as the env's server signs it.
func (e *env) checkInCode(id int64) string {
	return booking.NewCheckInCodes(e.signer.DeriveKey(booking.CheckInKeyPurpose)).Display(id)
}
