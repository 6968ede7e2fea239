package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// The public summary of an opening's fairness report: 404 until the clinic
// turns the policy on (off by default), then the counts, times and
// refusals by reason, with no patient's id, name or token in it.
func TestOpeningSummary(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	ctx := context.Background()
	sc, err := e.db.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	opens := t0.Add(time.Hour)
	sl := e.slot(f, 1, func(s *booking.Slot) { s.ScheduleID, s.OpensAt = sc.ID, opens })
	var o openingView
	e.do(call{method: "POST", path: "/api/admin/openings", token: e.admin,
		body: map[string]any{"scheduleId": sc.ID, "opensAt": opens.Format(time.RFC3339)}}).expect(t, 201).decode(t, &o)
	summary := fmt.Sprintf("/api/openings/%d/summary", o.ID)

	var pol map[string]any
	e.do(call{method: "GET", path: "/api/admin/policy", token: e.admin}).expect(t, 200).decode(t, &pol)
	if pol["publicOpeningSummary"] != false {
		t.Fatalf("the policy by default: %v", pol)
	}
	e.do(call{method: "GET", path: summary}).expect(t, 404, booking.CodeNotFound)
	pol["publicOpeningSummary"] = true
	e.do(call{method: "PUT", path: "/api/admin/policy", token: e.admin, body: pol}).expect(t, 200)
	e.do(call{method: "GET", path: "/api/openings/999/summary"}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: "/api/openings/x/summary", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)

	// Two people in the queue; the first admitted books the one place,
	// the other is refused without an admission.
	pa, pb := e.patient(), e.patient()
	ta, tb := e.patientToken(pa.ID), e.patientToken(pb.ID)
	queue := fmt.Sprintf("/api/openings/%d/queue", o.ID)
	e.do(call{method: "POST", path: queue, token: ta}).expect(t, 201)
	e.do(call{method: "POST", path: queue, token: tb}).expect(t, 201)
	e.clock.set(opens.Add(time.Second))
	if err := e.svc.AdmitDue(ctx); err != nil {
		t.Fatal(err)
	}
	var admission, who, other string
	for _, c := range [][2]string{{ta, tb}, {tb, ta}} {
		var pl booking.OpeningPlace
		e.do(call{method: "GET", path: queue, token: c[0]}).expect(t, 200).decode(t, &pl)
		if pl.Admitted {
			admission, who, other = pl.Token, c[0], c[1]
		}
	}
	if admission == "" {
		t.Fatal("nobody admitted")
	}
	e.do(call{method: "POST", path: "/api/appointments", token: who, header: map[string]string{"Idempotency-Key": "in", AdmissionHeader: admission},
		body: slotBody(sl.ID)}).expect(t, 201)
	e.do(call{method: "POST", path: "/api/appointments", token: other, header: map[string]string{"Idempotency-Key": "out"},
		body: slotBody(sl.ID)}).expect(t, 409, booking.CodeNotAdmitted)

	a := e.do(call{method: "GET", path: summary}).expect(t, 200)
	var sum booking.OpeningSummary
	a.decode(t, &sum)
	if sum.OpeningID != o.ID || sum.Places != 1 || sum.Sold != 1 || sum.SellOutSeconds == nil || sum.FirstSaleSeconds == nil ||
		sum.Refusals[string(booking.CodeNotAdmitted)] != 1 || sum.Refusals["created"] != 0 || sum.P99Ms <= 0 {
		t.Fatalf("summary %+v", sum)
	}
	var raw map[string]json.RawMessage
	a.decode(t, &raw)
	for k := range raw {
		switch k {
		case "openingId", "opensAt", "places", "sold", "firstSaleSeconds", "sellOutSeconds", "refusals", "p50Ms", "p99Ms", "inversions":
		default:
			t.Errorf("the public summary says %q", k)
		}
	}
	if strings.Contains(string(a.body), admission) {
		t.Fatalf("the summary holds an admission: %s", a.body)
	}
}
