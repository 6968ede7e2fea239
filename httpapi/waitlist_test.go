package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

func TestWaitlistOverHTTP(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	holder := e.patient()
	htok := e.patientToken(holder.ID)
	var a booking.Appointment
	e.do(book(htok, "b", slotBody(sl.ID))).expect(t, http.StatusCreated).decode(t, &a)

	p := e.patient()
	tok := e.patientToken(p.ID)
	body := map[string]any{"doctorId": f.doctor.ID, "from": t0.Format(time.RFC3339), "to": t0.Add(7 * 24 * time.Hour).Format(time.RFC3339), "partOfDay": "any"}
	join := call{method: "POST", path: "/api/waitlist", token: tok, body: body, header: map[string]string{"Idempotency-Key": "w1"}}
	var entry booking.WaitlistEntry
	e.do(join).expect(t, http.StatusCreated).decode(t, &entry)
	if entry.Position != 1 || entry.State != booking.EntryWaiting {
		t.Fatalf("%+v", entry)
	}
	e.do(join).expect(t, http.StatusOK)
	bad := call{method: "POST", path: "/api/waitlist", token: tok, invalid: true, header: map[string]string{"Idempotency-Key": "w2"},
		body: map[string]any{"doctorId": f.doctor.ID, "departmentId": f.dept.ID, "from": t0.Format(time.RFC3339), "to": t0.Add(time.Hour).Format(time.RFC3339)}}
	e.do(bad).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	staff := call{method: "POST", path: "/api/waitlist", token: e.admin, body: body, invalid: true, header: map[string]string{"Idempotency-Key": "w3"}}
	e.do(staff).expect(t, http.StatusForbidden, booking.CodeForbidden)

	// The holder cancels: the place is kept for the waitlist, the offer
	// job (run here by hand) holds it for p.
	e.do(call{method: "DELETE", path: "/api/appointments/" + strconv.FormatInt(a.ID, 10), token: htok}).expect(t, http.StatusOK)
	e.do(book(e.patientToken(e.patient().ID), "rush", slotBody(sl.ID))).expect(t, http.StatusConflict, booking.CodeSlotFull)
	if _, err := e.db.MakeOffers(context.Background(), sl.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	var mine []booking.WaitlistEntry
	e.do(call{method: "GET", path: "/api/me/waitlist", token: tok}).expect(t, http.StatusOK).items(t, &mine)
	if len(mine) != 1 || mine[0].State != booking.EntryOffered || mine[0].OfferExpiresAt == nil {
		t.Fatalf("%+v", mine)
	}
	var offers []booking.WaitlistEntry
	e.do(call{method: "GET", path: "/api/admin/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/offers?from=" +
		t0.Format(time.RFC3339) + "&to=" + t0.Add(7*24*time.Hour).Format(time.RFC3339), token: e.admin}).expect(t, http.StatusOK).items(t, &offers)
	if len(offers) != 1 || offers[0].ID != entry.ID {
		t.Fatalf("staff offers %+v", offers)
	}
	path := "/api/waitlist/" + strconv.FormatInt(entry.ID, 10)
	e.do(call{method: "POST", path: path + "/accept", token: e.patientToken(e.patient().ID)}).expect(t, http.StatusNotFound, booking.CodeNotFound)
	var ans offerAnswer
	e.do(call{method: "POST", path: path + "/accept", token: tok}).expect(t, http.StatusOK).decode(t, &ans)
	if ans.Entry.State != booking.EntryAccepted || ans.Appointment.Status != booking.StatusBooked || ans.Appointment.PatientID != p.ID {
		t.Fatalf("%+v", ans)
	}
	e.do(call{method: "POST", path: path + "/decline", token: tok}).expect(t, http.StatusConflict, booking.CodeInvalidTransition)
	e.do(call{method: "DELETE", path: path, token: tok}).expect(t, http.StatusOK)
}
