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

// A household waits together: partySize takes the account's next people,
// patientIds names them; a party beyond the account's people, a person of
// another account, or sizes out of bounds are 4xx problems; the offer
// holds every person's place and accepting books them all.
func TestWaitlistPartyOverHTTP(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 2)
	holders := []booking.Patient{e.patient(), e.patient()}
	var held []booking.Appointment
	for i, h := range holders {
		var a booking.Appointment
		e.do(book(e.patientToken(h.ID), "b"+strconv.Itoa(i), slotBody(sl.ID))).expect(t, http.StatusCreated).decode(t, &a)
		held = append(held, a)
	}
	acc, other := e.patient(), e.patient()
	tok := e.patientToken(acc.ID)
	var kid struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/me/people", token: tok, body: personBody("Kid")}).expect(t, 201).decode(t, &kid)
	period := func(extra map[string]any) map[string]any {
		b := map[string]any{"doctorId": f.doctor.ID, "from": t0.Format(time.RFC3339), "to": t0.Add(7 * 24 * time.Hour).Format(time.RFC3339)}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	join := func(key string, extra map[string]any) call {
		return call{method: "POST", path: "/api/waitlist", token: tok, body: period(extra), header: map[string]string{"Idempotency-Key": key}}
	}
	bad := func(key string, extra map[string]any) call { c := join(key, extra); c.invalid = true; return c }
	e.do(bad("x1", map[string]any{"partySize": 3})).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest) // two people
	e.do(bad("x2", map[string]any{"partySize": 11})).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	e.do(bad("x3", map[string]any{"partySize": -1})).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	e.do(bad("x4", map[string]any{"patientIds": []int64{other.ID}})).expect(t, http.StatusNotFound, booking.CodeNotFound)
	e.do(bad("x5", map[string]any{"patientIds": []int64{0}})).expect(t, http.StatusBadRequest, booking.CodeInvalidRequest)
	var entry booking.WaitlistEntry
	e.do(join("p1", map[string]any{"partySize": 2})).expect(t, http.StatusCreated).decode(t, &entry)
	if entry.PartySize != 2 || len(entry.PatientIDs) != 2 || entry.PatientIDs[0] != acc.ID || entry.PatientIDs[1] != kid.ID {
		t.Fatalf("%+v", entry)
	}
	e.do(join("p1", map[string]any{"partySize": 2})).expect(t, http.StatusOK)
	e.do(join("p1", map[string]any{"patientIds": []int64{kid.ID}})).expect(t, http.StatusOK) // the same party, named
	e.do(bad("p1", nil)).expect(t, http.StatusUnprocessableEntity, booking.CodeKeyReused)

	// Both holders cancel: the party's two places are offered at once.
	for i, a := range held {
		e.do(call{method: "DELETE", path: "/api/appointments/" + strconv.FormatInt(a.ID, 10), token: e.patientToken(holders[i].ID)}).expect(t, http.StatusOK)
	}
	if _, err := e.db.MakeOffers(context.Background(), sl.ID, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	path := "/api/waitlist/" + strconv.FormatInt(entry.ID, 10)
	var ans offerAnswer
	e.do(call{method: "POST", path: path + "/accept", token: tok}).expect(t, http.StatusOK).decode(t, &ans)
	if ans.Entry.State != booking.EntryAccepted || ans.Entry.PartySize != 2 || ans.Appointment.Status != booking.StatusBooked {
		t.Fatalf("%+v", ans)
	}
	s, err := e.db.GetSlot(context.Background(), sl.ID)
	if err != nil || s.BookedCount != 2 {
		t.Fatalf("booked %d of the party's 2 (%v)", s.BookedCount, err)
	}
}
