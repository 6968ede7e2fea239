package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

func personBody(name string) map[string]any {
	return map[string]any{"name": name, "birthDate": "2016-04-05", "sex": "male", "relation": "child", "consent": true}
}

// TestPeopleEndpoints: every answer of /api/me/people and
// /api/me/people/{id}, and booking for a person through POST
// /api/appointments.
func TestPeopleEndpoints(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	a, b := e.patient(), e.patient()
	ta, tb := e.patientToken(a.ID), e.patientToken(b.ID)
	people := "/api/me/people"

	// Bad input, each a 400 that adds nobody.
	before := e.snapshot()
	for name, body := range map[string]any{
		"no consent":     map[string]any{"name": "K", "birthDate": "2016-04-05", "relation": "child"},
		"consent false":  map[string]any{"name": "K", "birthDate": "2016-04-05", "relation": "child", "consent": false},
		"no name":        map[string]any{"birthDate": "2016-04-05", "relation": "child", "consent": true},
		"long name":      map[string]any{"name": strings.Repeat("n", 201), "birthDate": "2016-04-05", "relation": "child", "consent": true},
		"no birth date":  map[string]any{"name": "K", "relation": "child", "consent": true},
		"future birth":   map[string]any{"name": "K", "birthDate": "2999-01-01", "relation": "child", "consent": true},
		"bad relation":   map[string]any{"name": "K", "birthDate": "2016-04-05", "relation": "self", "consent": true},
		"bad sex":        map[string]any{"name": "K", "birthDate": "2016-04-05", "sex": "x", "relation": "child", "consent": true},
		"unknown member": map[string]any{"name": "K", "birthDate": "2016-04-05", "relation": "child", "consent": true, "phone": "1"},
		"not an object":  []int{1},
	} {
		ans := e.do(call{method: "POST", path: people, token: ta, body: body, invalid: true})
		if ans.status != 400 {
			t.Errorf("%s: %d %s", name, ans.status, ans.body)
		}
	}
	e.do(call{method: "POST", path: people, token: e.token(auth.RoleDoctor, "1"), body: personBody("K")}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: people, token: e.admin, body: personBody("K")}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: people, body: personBody("K")}).expect(t, 401, booking.CodeUnauthorized)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused request changed the database")
	}

	// Up to maxPeople (5: the account and four).
	var kid struct {
		ID        int64
		ManagerID int64 `json:"managerId"`
		Relation  string
	}
	ans := e.do(call{method: "POST", path: people, token: ta, body: personBody("Kid")}).expect(t, 201)
	ans.decode(t, &kid)
	if kid.ManagerID != a.ID || kid.Relation != "child" || ans.header.Get("Location") != fmt.Sprintf("%s/%d", people, kid.ID) {
		t.Fatalf("added %+v, Location %q", kid, ans.header.Get("Location"))
	}
	for i := range 3 {
		e.do(call{method: "POST", path: people, token: ta, body: personBody(fmt.Sprint("Kid ", i))}).expect(t, 201)
	}
	e.do(call{method: "POST", path: people, token: ta, body: personBody("One too many")}).expect(t, 409, booking.CodeConflict)

	// The list: the account first, paged.
	var page struct {
		Items []struct{ ID int64 }
		Next  *string
	}
	e.do(call{method: "GET", path: people + "?limit=2", token: ta}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].ID != a.ID || page.Items[1].ID != kid.ID || page.Next == nil {
		t.Fatalf("first page %+v", page)
	}
	e.do(call{method: "GET", path: people + "?limit=10&cursor=" + *page.Next, token: ta}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 3 || page.Next != nil {
		t.Fatalf("second page %+v", page)
	}
	e.do(call{method: "GET", path: people + "?limit=0", token: ta, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: people + "?cursor=x", token: ta, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: people + "?colour=red", token: ta, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: people, token: tb}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != b.ID {
		t.Fatalf("B's people %+v", page)
	}

	// Editing.
	one := fmt.Sprintf("%s/%d", people, kid.ID)
	e.do(call{method: "PATCH", path: one, token: ta, body: map[string]any{"name": "Kiddo", "relation": "other"}}).expect(t, 200)
	e.do(call{method: "PATCH", path: one, token: ta, body: map[string]any{}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: one, token: ta, body: map[string]any{"birthDate": "05/04/2016"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: one, token: ta, body: map[string]any{"relation": "boss"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: one, token: tb, body: map[string]any{"name": "Mine"}}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "PATCH", path: fmt.Sprintf("%s/%d", people, a.ID), token: ta, body: map[string]any{"name": "Me"}}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "PATCH", path: people + "/0", token: ta, body: map[string]any{"name": "Me"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "PATCH", path: people + "/999999", token: ta, body: map[string]any{"name": "Me"}}).expect(t, 404, booking.CodeNotFound)

	// Booking for the kid; B naming A's kid is not found and books nothing.
	sl := e.slot(f, 2)
	before = e.snapshot()
	e.do(book(tb, "b-1", map[string]any{"slotId": sl.ID, "patientId": kid.ID})).expect(t, 404, booking.CodeNotFound)
	if after := e.snapshot(); after != before {
		t.Fatal("booking for another account's person changed the database")
	}
	var appt struct {
		ID        int64
		PatientID int64 `json:"patientId"`
	}
	e.do(book(ta, "a-1", map[string]any{"slotId": sl.ID, "patientId": kid.ID})).expect(t, 201).decode(t, &appt)
	if appt.PatientID != kid.ID {
		t.Fatalf("booked for %d, want %d", appt.PatientID, kid.ID)
	}
	var list struct {
		Items []struct{ ID, PatientID int64 }
	}
	e.do(call{method: "GET", path: "/api/me/appointments", token: ta}).expect(t, 200).decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].ID != appt.ID {
		t.Fatalf("A's appointments %+v", list)
	}
	e.do(call{method: "GET", path: "/api/me/appointments", token: tb}).expect(t, 200).decode(t, &list)
	if len(list.Items) != 0 {
		t.Fatalf("B sees %+v", list)
	}

	// Removal: refused while booked, refused to B, then done.
	e.do(call{method: "DELETE", path: one, token: ta}).expect(t, 409, booking.CodeConflict)
	e.do(call{method: "DELETE", path: one, token: tb}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", appt.ID), token: tb}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", appt.ID), token: ta}).expect(t, 200)
	e.do(call{method: "DELETE", path: one, token: ta}).expect(t, 204)
	e.do(call{method: "DELETE", path: one, token: ta}).expect(t, 404, booking.CodeNotFound)
	e.do(book(ta, "a-2", map[string]any{"slotId": sl.ID, "patientId": kid.ID})).expect(t, 404, booking.CodeNotFound)
}

// TestPeopleMovesAndWaitlist: an account reschedules its person's
// appointment (the move stays theirs) and joins, lists and leaves the
// waitlist for them with patientId; another account gets 404 for each and
// changes nothing.
func TestPeopleMovesAndWaitlist(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	a, b := e.patient(), e.patient()
	ta, tb := e.patientToken(a.ID), e.patientToken(b.ID)
	var kid struct{ ID int64 }
	e.do(call{method: "POST", path: "/api/me/people", token: ta, body: personBody("Kid")}).expect(t, 201).decode(t, &kid)
	from, to := e.slot(f, 2), e.slot(f, 2)
	var appt struct {
		ID, SlotID int64
		PatientID  int64 `json:"patientId"`
	}
	e.do(book(ta, "a-1", map[string]any{"slotId": from.ID, "patientId": kid.ID})).expect(t, 201).decode(t, &appt)

	before := e.snapshot()
	e.do(rescheduleCall(tb, "m-1", appt.ID, to.ID)).expect(t, 404, booking.CodeNotFound)
	if after := e.snapshot(); after != before {
		t.Fatal("another account's move changed the database")
	}
	e.do(rescheduleCall(ta, "m-1", appt.ID, to.ID)).expect(t, 200).decode(t, &appt)
	if appt.SlotID != to.ID || appt.PatientID != kid.ID {
		t.Fatalf("moved %+v", appt)
	}
	e.do(rescheduleCall(ta, "m-1", appt.ID, to.ID)).expect(t, 200) // the retry replays

	// The waitlist for the kid.
	body := map[string]any{"patientId": kid.ID, "doctorId": f.doctor.ID, "from": t0.Format(time.RFC3339), "to": t0.Add(7 * 24 * time.Hour).Format(time.RFC3339)}
	join := func(tok, key string) call {
		return call{method: "POST", path: "/api/waitlist", token: tok, body: body, header: map[string]string{"Idempotency-Key": key}}
	}
	before = e.snapshot()
	e.do(join(tb, "w-1")).expect(t, 404, booking.CodeNotFound)
	if after := e.snapshot(); after != before {
		t.Fatal("joining for another account's person changed the database")
	}
	var entry booking.WaitlistEntry
	e.do(join(ta, "w-1")).expect(t, 201).decode(t, &entry)
	if entry.PatientID != kid.ID {
		t.Fatalf("joined %+v", entry)
	}
	var page struct{ Items []booking.WaitlistEntry }
	e.do(call{method: "GET", path: "/api/me/waitlist", token: ta}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 0 {
		t.Fatalf("the account's own list %+v", page.Items)
	}
	kids := fmt.Sprintf("?patientId=%d", kid.ID)
	e.do(call{method: "GET", path: "/api/me/waitlist" + kids, token: ta}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != entry.ID {
		t.Fatalf("the kid's list %+v", page.Items)
	}
	e.do(call{method: "GET", path: "/api/me/waitlist" + kids, token: tb}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: "/api/me/waitlist?patientId=0", token: ta, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	leave := fmt.Sprintf("/api/waitlist/%d", entry.ID)
	e.do(call{method: "DELETE", path: leave, token: ta}).expect(t, 404, booking.CodeNotFound) // the account's own entry: none
	e.do(call{method: "DELETE", path: leave + kids, token: tb}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "POST", path: leave + "/decline" + kids, token: tb}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "DELETE", path: leave + kids, token: ta}).expect(t, 200).decode(t, &entry)
	if entry.State != booking.EntryCancelled {
		t.Fatalf("left %+v", entry)
	}
}

// TestNewPatientBooksForTheirChild: the browser path through the API: a
// new phone asks a sign-up code, signs up (201, a token), adds a child,
// finds an open slot, books it for the child, and reads the appointment,
// the child's, in its account's list.
func TestNewPatientBooksForTheirChild(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	const phone = "+4930555000999"
	e.do(askSignupCode(phone)).expect(t, 202)
	code, _ := e.codes.code(phone)
	var tok signupToken
	e.do(signupCall(map[string]string{"phone": phone, "code": code, "name": "New Parent"})).expect(t, 201).decode(t, &tok)
	var kid booking.Patient
	e.do(call{method: "POST", path: "/api/me/people", token: tok.Token, body: personBody("Little One")}).expect(t, 201).decode(t, &kid)
	var slots slotsAnswer
	berlin, err := time.LoadLocation(f.doctor.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors/%d/slots?date=%s", f.doctor.ID,
		sl.StartAt.In(berlin).Format(time.DateOnly))}).expect(t, 200).decode(t, &slots)
	if len(slots.Slots) != 1 || slots.Slots[0].ID != sl.ID {
		t.Fatalf("slots %+v", slots.Slots)
	}
	var appt booking.Appointment
	e.do(book(tok.Token, "child-1", map[string]any{"slotId": sl.ID, "patientId": kid.ID})).expect(t, 201).decode(t, &appt)
	if appt.PatientID != kid.ID || appt.Status != booking.StatusBooked {
		t.Fatalf("booked %+v", appt)
	}
	var list struct{ Items []booking.Appointment }
	e.do(call{method: "GET", path: "/api/me/appointments", token: tok.Token}).expect(t, 200).decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].ID != appt.ID || list.Items[0].PatientID != kid.ID {
		t.Fatalf("the account's appointments %+v", list.Items)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d", appt.ID), token: tok.Token}).expect(t, 200)
}
