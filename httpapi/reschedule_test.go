package httpapi

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func rescheduleCall(tok, key string, apptID, slotID int64) call {
	h := map[string]string{}
	if key != "" {
		h["Idempotency-Key"] = key
	}
	return call{method: "POST", path: "/api/appointments/" + strconv.FormatInt(apptID, 10) + "/reschedule",
		token: tok, body: slotBody(slotID), header: h}
}

func TestReschedule(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	from, to := e.slot(f, 1), e.slot(f, 1)
	p := e.patient()
	tok := e.patientToken(p.ID)
	var a booking.Appointment
	e.do(book(tok, "b", slotBody(from.ID))).expect(t, http.StatusCreated).decode(t, &a)

	var m booking.Appointment
	e.do(rescheduleCall(tok, "r", a.ID, to.ID)).expect(t, http.StatusOK).decode(t, &m)
	if m.ID != a.ID || m.SlotID != to.ID || m.QueueNumber != 1 {
		t.Fatalf("%+v", m)
	}
	var again booking.Appointment
	e.do(rescheduleCall(tok, "r", a.ID, to.ID)).expect(t, http.StatusOK).decode(t, &again)
	if again.ID != a.ID || again.SlotID != to.ID {
		t.Fatalf("replay %+v", again)
	}
	e.do(rescheduleCall(tok, "r", a.ID, from.ID)).expect(t, http.StatusUnprocessableEntity, booking.CodeKeyReused)
	e.clock.add(time.Minute) // the moves spend the patient's booking attempts
	noKey := rescheduleCall(tok, "", a.ID, from.ID)
	noKey.invalid = true
	e.do(noKey).expect(t, http.StatusBadRequest, booking.CodeMissingIdempotencyKey)
	badSlot := rescheduleCall(tok, "x", a.ID, 0)
	badSlot.invalid = true
	e.do(badSlot).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	// Someone else's appointment is not found; the moved one's old slot is free again.
	other := e.patientToken(e.patient().ID)
	e.do(rescheduleCall(other, "y", a.ID, from.ID)).expect(t, http.StatusNotFound, booking.CodeNotFound)
	e.do(book(other, "z", slotBody(from.ID))).expect(t, http.StatusCreated)
	e.clock.add(time.Minute)
	e.do(rescheduleCall(tok, "w", a.ID, from.ID)).expect(t, http.StatusConflict, booking.CodeSlotFull)
	anon := rescheduleCall("", "w", a.ID, from.ID)
	anon.invalid = true
	e.do(anon).expect(t, http.StatusUnauthorized, booking.CodeUnauthorized)
}
