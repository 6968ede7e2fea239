package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// TestServicesAndVisits: staff create a 45-minute service, patients list
// it and book it from a slot; the appointment lasts 45 minutes and the
// next two slots are taken with it.
func TestServicesAndVisits(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	var sls []booking.Slot
	for i := range 4 {
		sls = append(sls, e.slot(f, 1, func(s *booking.Slot) {
			s.StartAt = t0.Add(48*time.Hour + time.Duration(i)*15*time.Minute)
			s.EndAt = s.StartAt.Add(15 * time.Minute)
		}))
	}
	var svc booking.Service
	e.do(call{method: "POST", path: "/api/admin/services", token: e.admin, body: map[string]any{
		"name": "Specialist consultation", "durationMinutes": 45, "fee": 5000, "level": "specialist",
		"doctorIds": []int64{f.doctor.ID}, "notes": "Bring your last results."}}).expect(t, 201).decode(t, &svc)
	e.do(call{method: "POST", path: "/api/admin/services", token: e.admin, body: map[string]any{
		"name": "Specialist consultation", "durationMinutes": 45, "level": "specialist"}}).expect(t, 409, booking.CodeConflict)
	e.do(call{method: "POST", path: "/api/admin/services", token: e.admin, body: map[string]any{
		"name": "Odd", "durationMinutes": 45, "level": "expert"}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/services", token: e.admin, body: map[string]any{
		"name": "Ghost", "durationMinutes": 15, "level": "ordinary", "doctorIds": []int64{999999}}}).expect(t, 404, booking.CodeNotFound)

	var page struct{ Items []booking.Service }
	e.do(call{method: "GET", path: fmt.Sprintf("/api/services?doctorId=%d", f.doctor.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != svc.ID || page.Items[0].Notes == "" {
		t.Fatalf("services %+v", page.Items)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/services?doctorId=%d", f.doctor2.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 0 {
		t.Fatalf("doctor2's services %+v", page.Items)
	}

	p := e.patient()
	tok := e.patientToken(p.ID)
	book := func(key string, body map[string]any) answer {
		return e.do(call{method: "POST", path: "/api/appointments", token: tok, header: map[string]string{"Idempotency-Key": key}, body: body})
	}
	var a booking.Appointment
	book("v-1", map[string]any{"slotId": sls[0].ID, "service": svc.ID}).expect(t, 201).decode(t, &a)
	if a.ServiceID != svc.ID || !a.EndAt.Equal(sls[2].EndAt) {
		t.Fatalf("visit %+v", a)
	}
	book("v-1", map[string]any{"slotId": sls[0].ID, "service": svc.ID}).expect(t, 200)
	book("v-1", map[string]any{"slotId": sls[0].ID}).expect(t, 422, booking.CodeKeyReused)
	book("v-2", map[string]any{"slotId": sls[1].ID, "service": svc.ID}).expect(t, 409, booking.CodeOverlapping)
	book("v-4", map[string]any{"slotId": sls[2].ID, "service": svc.ID}).expect(t, 409, booking.CodeServiceNotOffered)
	e.do(call{method: "POST", path: "/api/appointments", token: tok, header: map[string]string{"Idempotency-Key": "v-3"},
		body: map[string]any{"slotId": sls[0].ID, "service": 0}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	other := e.patientToken(e.patient().ID)
	e.do(call{method: "POST", path: "/api/appointments", token: other, header: map[string]string{"Idempotency-Key": "o-1"},
		body: slotBody(sls[2].ID)}).expect(t, 409, booking.CodeSlotFull)

	// Withdrawn: listed to staff only, no longer bookable.
	var changed booking.Service
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/services/%d", svc.ID), token: e.admin, body: map[string]any{"active": false}}).
		expect(t, 200).decode(t, &changed)
	if changed.Active || changed.Minutes != 45 {
		t.Fatalf("withdrawn %+v", changed)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/services/%d", svc.ID)}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: "/api/admin/services", token: e.admin}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 {
		t.Fatalf("staff list %+v", page.Items)
	}
	e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/services/%d", svc.ID), token: e.admin, body: map[string]any{}, invalid: true}).
		expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/appointments", token: other, header: map[string]string{"Idempotency-Key": "o-2"},
		body: map[string]any{"slotId": sls[3].ID, "service": svc.ID}}).expect(t, 404, booking.CodeNotFound)

	// Cancelling the visit frees its three slots.
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", a.ID), token: tok}).expect(t, 200)
	e.do(call{method: "POST", path: "/api/appointments", token: other, header: map[string]string{"Idempotency-Key": "o-3"},
		body: slotBody(sls[2].ID)}).expect(t, 201)
}

// TestFirstAvailable: the earliest places for a service across its
// doctors, paged, and the refusals of a bad question.
func TestFirstAvailable(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	start := t0.Add(48 * time.Hour)
	for _, doc := range []int64{f.doctor.ID, f.doctor2.ID} {
		for i := range 3 {
			e.slot(f, 1, func(s *booking.Slot) {
				s.DoctorID, s.StartAt = doc, start.Add(time.Duration(i)*15*time.Minute)
				s.EndAt = s.StartAt.Add(15 * time.Minute)
			})
		}
	}
	svc, err := e.db.CreateService(t.Context(), booking.Service{Name: "Consultation", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{f.doctor.ID, f.doctor2.ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Items []booking.Place
		Next  *string
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&limit=3", svc.ID)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 3 || page.Next == nil || !page.Items[0].StartAt.Equal(start) || page.Items[0].DoctorID != f.doctor.ID ||
		page.Items[1].DoctorID != f.doctor2.ID || !page.Items[0].EndAt.Equal(start.Add(30*time.Minute)) {
		t.Fatalf("first page %+v", page)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&limit=3&cursor=%s", svc.ID, *page.Next)}).expect(t, 200).decode(t, &page)
	if len(page.Items) != 1 || page.Next != nil {
		t.Fatalf("second page %+v", page)
	}
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&from=%s", svc.ID, start.Add(20*time.Minute).Format(time.RFC3339))}).
		expect(t, 200).decode(t, &page)
	if len(page.Items) != 0 {
		t.Fatalf("from after the last run: %+v", page)
	}
	e.do(call{method: "GET", path: "/api/availability", invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: fmt.Sprintf("/api/availability?service=%d&from=tomorrow", svc.ID), invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/availability?service=999999"}).expect(t, 404, booking.CodeNotFound)
}

// TestVisitReschedule: a visit moves with all its places; the slots it
// left, refused as full before (and so known full to the gates), are
// bookable at once.
func TestVisitReschedule(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	var sls []booking.Slot
	for i := range 4 {
		sls = append(sls, e.slot(f, 1, func(s *booking.Slot) {
			s.StartAt = t0.Add(48*time.Hour + time.Duration(i)*15*time.Minute)
			s.EndAt = s.StartAt.Add(15 * time.Minute)
		}))
	}
	svc, err := e.db.CreateService(t.Context(), booking.Service{Name: "Consultation", Minutes: 30, Level: booking.LevelOrdinary,
		DoctorIDs: []int64{f.doctor.ID}, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	tok, other := e.patientToken(e.patient().ID), e.patientToken(e.patient().ID)
	post := func(tok, path, key string, body map[string]any) answer {
		return e.do(call{method: "POST", path: path, token: tok, header: map[string]string{"Idempotency-Key": key}, body: body})
	}
	var a booking.Appointment
	post(tok, "/api/appointments", "v", map[string]any{"slotId": sls[0].ID, "service": svc.ID}).expect(t, 201).decode(t, &a)
	post(other, "/api/appointments", "o-1", slotBody(sls[1].ID)).expect(t, 409, booking.CodeSlotFull)

	move := fmt.Sprintf("/api/appointments/%d/reschedule", a.ID)
	post(tok, move, "m-1", map[string]any{"slotId": sls[3].ID}).expect(t, 409, booking.CodeServiceNotOffered)
	var moved booking.Appointment
	post(tok, move, "m-2", map[string]any{"slotId": sls[2].ID}).expect(t, 200).decode(t, &moved)
	if moved.ID != a.ID || moved.SlotID != sls[2].ID || !moved.EndAt.Equal(sls[3].EndAt) || moved.ServiceID != svc.ID {
		t.Fatalf("moved %+v", moved)
	}
	post(other, "/api/appointments", "o-2", slotBody(sls[1].ID)).expect(t, 201)
	post(other, "/api/appointments", "o-3", slotBody(sls[3].ID)).expect(t, 409, booking.CodeSlotFull)
}
