package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestProblemNamesTheInput: a problem about one input names it, in detail
// and in errors (a JSON Pointer into the body, or the query parameter); a
// plain date where a date-time is expected is such a problem, not a
// "malformed JSON body".
func TestProblemNamesTheInput(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 2)
	tok := e.patientToken(e.patient().ID)

	cases := []struct {
		name      string
		c         call
		pointer   string
		parameter string
		inDetail  string
	}{
		{"date for a date-time", post("/api/admin/slots", e.admin, map[string]any{"doctorId": f.doctor.ID, "startAt": "2026-03-05", "durationMinutes": 20, "capacity": 2}),
			"/startAt", "", "startAt"},
		{"date for an optional date-time", post("/api/admin/slots", e.admin, map[string]any{"doctorId": f.doctor.ID, "startAt": "2026-03-05T09:00:00Z", "opensAt": "2026-03-04", "durationMinutes": 20, "capacity": 2}),
			"/opensAt", "", "opensAt"},
		{"date-time without offset", post("/api/admin/closures", e.admin, map[string]any{"scope": "clinic", "from": "2026-03-05T09:00:00", "to": "2026-03-06T09:00:00Z", "reason": "x"}),
			"/from", "", "from"},
		{"wrong type", book(tok, "k", map[string]any{"slotId": "41"}), "/slotId", "", "slotId"},
		{"out of range", book(tok, "k", map[string]any{"slotId": 0}), "/slotId", "", "slotId"},
		{"unknown member", book(tok, "k", map[string]any{"slotId": sl.ID, "seat/row": 1}), "/seat~1row", "", "seat/row"},
		{"enum in a query", call{method: "GET", path: "/api/me/appointments?status=gone", token: tok}, "", "status", "status"},
		{"date in a query", call{method: "GET", path: fmt.Sprintf("/api/doctors/%d/slots?date=tomorrow", f.doctor.ID)}, "", "date", "date"},
		{"date-time in a query", call{method: "GET", path: "/api/admin/audit?from=yesterday", token: e.admin}, "", "from", "from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.invalid = true
			p := e.do(tc.c).expect(t, 400, booking.CodeInvalidRequest).problem(t)
			if !strings.Contains(p.Detail, tc.inDetail) {
				t.Errorf("detail %q does not name %s", p.Detail, tc.inDetail)
			}
			if len(p.Errors) != 1 || p.Errors[0].Pointer != tc.pointer || p.Errors[0].Parameter != tc.parameter || p.Errors[0].Detail != p.Detail {
				t.Errorf("errors %+v, want pointer %q parameter %q", p.Errors, tc.pointer, tc.parameter)
			}
		})
	}
	// A problem about no one input has no errors, and still its instance.
	c := book(tok, "k", `{"slotId":`)
	c.invalid = true
	a := e.do(c).expect(t, 400)
	if p := a.problem(t); p.Errors != nil || p.Instance != "urn:slotd:request:"+a.header.Get("X-Request-Id") {
		t.Fatalf("%+v", p)
	}
	// The request id a client sent is the instance it can quote.
	c = book(tok, "", slotBody(sl.ID))
	c.invalid, c.header["X-Request-Id"] = true, "client-42"
	if p := e.do(c).expect(t, 400).problem(t); p.Instance != "urn:slotd:request:client-42" {
		t.Fatalf("instance %q", p.Instance)
	}
}

// TestEnumsEitherCase: every enum a client sends is accepted in either
// case, in a query and in a body; answers spell it as documented.
func TestEnumsEitherCase(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 3)
	p := e.patient()
	tok := e.patientToken(p.ID)
	var ap booking.Appointment
	e.do(book(tok, "k", slotBody(sl.ID))).expect(t, 201).decode(t, &ap)

	for _, st := range []string{"booked", "Booked", "BOOKED"} {
		c := call{method: "GET", path: "/api/me/appointments?status=" + st, token: tok, invalid: st != "BOOKED"}
		var as listPage[booking.Appointment]
		e.do(c).expect(t, 200).decode(t, &as)
		if len(as.Items) != 1 || as.Items[0].ID != ap.ID {
			t.Fatalf("status=%s: %+v", st, as)
		}
	}
	var none listPage[booking.Appointment]
	e.do(call{method: "GET", path: "/api/me/appointments?status=cancelled", token: tok, invalid: true}).expect(t, 200).decode(t, &none)
	if len(none.Items) != 0 {
		t.Fatalf("status=cancelled: %+v", none)
	}

	var got struct{ Status string }
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", sl.ID), token: e.admin, body: map[string]any{"status": "closed"}, invalid: true}).
		expect(t, 200).decode(t, &got)
	if got.Status != booking.SlotClosed {
		t.Fatalf("slot status %q", got.Status)
	}

	from := e.clock.Now().Add(48 * time.Hour)
	closure := post("/api/admin/closures", e.admin, map[string]any{"scope": "Clinic", "from": from.Format(time.RFC3339), "to": from.Add(time.Hour).Format(time.RFC3339), "reason": "drill"})
	closure.invalid = true
	var res booking.SuspensionResult
	e.do(closure).expect(t, 201).decode(t, &res)
	if res.Suspension.Scope != booking.ScopeClinic {
		t.Fatalf("scope %q", res.Suspension.Scope)
	}

	var entry struct{ PartOfDay string }
	e.do(call{method: "POST", path: "/api/waitlist", token: tok, header: map[string]string{"Idempotency-Key": "w"}, invalid: true,
		body: map[string]any{"doctorId": f.doctor.ID, "from": e.clock.Now().Format(time.RFC3339), "to": e.clock.Now().Add(24 * time.Hour).Format(time.RFC3339), "partOfDay": "MORNING"}}).
		expect(t, 201).decode(t, &entry)
	if entry.PartOfDay != booking.PartMorning {
		t.Fatalf("partOfDay %q", entry.PartOfDay)
	}
}

// TestQueryDateMeansThatDay: a date-time filter given a plain date means
// that day in the clinic's zone, the end of a period included.
func TestQueryDateMeansThatDay(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 3)
	tok := e.patientToken(e.patient().ID)
	e.do(book(tok, "k", slotBody(sl.ID))).expect(t, 201)

	day := e.clock.Now().Format("2006-01-02")
	next := e.clock.Now().Add(24 * time.Hour).Format("2006-01-02")
	for _, tc := range []struct {
		query string
		n     int
	}{
		{"from=" + day + "&to=" + day, 1}, // the day, included
		{"from=" + day, 1},
		{"to=" + day, 1},
		{"from=" + next, 0},
		{"to=" + e.clock.Now().Add(-24*time.Hour).Format("2006-01-02"), 0},
	} {
		var page auditPage
		e.do(call{method: "GET", path: "/api/admin/audit?entity=appointment&" + tc.query, token: e.admin}).expect(t, 200).decode(t, &page)
		if len(page.Items) != tc.n {
			t.Errorf("%s: %d entries, want %d", tc.query, len(page.Items), tc.n)
		}
	}
}
