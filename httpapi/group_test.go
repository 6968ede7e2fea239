package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// A family booked at once: an account and its child in one request (201,
// consecutive numbers), a retry (200, the same appointments), another
// account naming the child (404), too few places (409, nothing kept) and
// malformed lists (400).
func TestGroupBookings(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl, small := e.slot(f, 4), e.slot(f, 1)
	a, b := e.patient(), e.patient()
	ta, tb := e.patientToken(a.ID), e.patientToken(b.ID)
	var child struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/me/people", token: ta, body: map[string]any{"name": "Kid", "birthDate": "2018-05-01", "relation": "child", "consent": true}}).
		expect(t, 201).decode(t, &child)
	group := func(tok, key string, slotID int64, ids ...int64) call {
		return call{method: "POST", path: "/api/group-bookings", token: tok, header: map[string]string{"Idempotency-Key": key},
			body: map[string]any{"slotId": slotID, "patientIds": ids}}
	}
	var got groupBooking
	ans := e.do(group(ta, "fam", sl.ID, a.ID, child.ID)).expect(t, 201)
	ans.decode(t, &got)
	as := got.Appointments
	if len(as) != 2 || as[0].PatientID != a.ID || as[1].PatientID != child.ID || as[1].QueueNumber != as[0].QueueNumber+1 {
		t.Fatalf("group booked %+v", as)
	}
	var again groupBooking
	e.do(group(ta, "fam", sl.ID, a.ID, child.ID)).expect(t, 200).decode(t, &again)
	if again.Appointments[1].ID != as[1].ID {
		t.Fatalf("retry answered %+v", again.Appointments)
	}
	e.clock.add(time.Minute)
	e.do(group(tb, "other", sl.ID, b.ID, child.ID)).expect(t, 404, booking.CodeNotFound)
	e.do(group(tb, "small", small.ID, b.ID, e.patient().ID)).expect(t, 404, booking.CodeNotFound) // not B's person
	var kid struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/me/people", token: tb, body: map[string]any{"name": "Kid B", "birthDate": "2019-05-01", "relation": "child", "consent": true}}).
		expect(t, 201).decode(t, &kid)
	before := e.snapshot()
	e.do(group(tb, "small", small.ID, b.ID, kid.ID)).expect(t, 409, booking.CodeSlotFull)
	if e.snapshot() != before {
		t.Fatal("a refused group changed the database")
	}
	e.clock.add(time.Minute)
	e.do(call{method: "POST", path: "/api/group-bookings", token: tb, header: map[string]string{"Idempotency-Key": "dup"},
		body: map[string]any{"slotId": sl.ID, "patientIds": []int64{b.ID, b.ID}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/group-bookings", token: tb, header: map[string]string{"Idempotency-Key": "none"},
		body: map[string]any{"slotId": sl.ID, "patientIds": []int64{}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	var sa booking.Slot
	e.do(call{method: "GET", path: fmt.Sprint("/api/slots/", sl.ID)}).expect(t, 200).decode(t, &sa)
	if sa.BookedCount != 2 {
		t.Fatalf("slot holds %d, want the family's 2", sa.BookedCount)
	}
}
