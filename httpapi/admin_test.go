package httpapi

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

func post(path, tok string, body any) call {
	return call{method: "POST", path: path, token: tok, body: body}
}

func TestAdminCatalog(t *testing.T) {
	e := newEnv(t)
	var dep booking.Department
	e.do(post("/api/admin/departments", e.admin, map[string]any{"name": "  Cardiology "})).expect(t, 201).decode(t, &dep)
	if dep.ID == 0 || dep.Name != "Cardiology" {
		t.Fatalf("%+v", dep)
	}
	e.do(post("/api/admin/departments", e.admin, map[string]any{"name": "Cardiology"})).expect(t, 409, booking.CodeConflict)
	// Without a doctor it offers nothing: staff list it, patients do not.
	listed := func(path, tok string, want int) {
		t.Helper()
		var ds []booking.Department
		e.do(call{method: "GET", path: path, token: tok}).expect(t, 200).items(t, &ds)
		if len(ds) != want || want == 1 && ds[0].ID != dep.ID {
			t.Fatalf("GET %s = %+v, want %d (department %d)", path, ds, want, dep.ID)
		}
	}
	listed("/api/departments", "", 0)
	listed("/api/admin/departments", e.admin, 1)

	var doc booking.Doctor
	a := e.do(post("/api/admin/doctors", e.admin, map[string]any{"name": "Dr. Weber", "departmentId": dep.ID, "timezone": "Europe/Berlin"})).expect(t, 201)
	a.decode(t, &doc)
	listed("/api/departments", "", 1)
	listed("/api/departments?limit=1", "", 1)
	if doc.ID == 0 || doc.TimeZone != "Europe/Berlin" || doc.DepartmentID != dep.ID || a.header.Get("Location") != "/api/doctors/"+strconv.FormatInt(doc.ID, 10) {
		t.Fatalf("%+v %q", doc, a.header.Get("Location"))
	}
	e.do(post("/api/admin/doctors", e.admin, map[string]any{"name": "X", "departmentId": dep.ID, "timezone": "Mars/Olympus"})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(post("/api/admin/doctors", e.admin, map[string]any{"name": "X", "departmentId": dep.ID, "timezone": "Local"})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(post("/api/admin/doctors", e.admin, map[string]any{"name": "X", "departmentId": 9999, "timezone": "UTC"})).expect(t, 404, booking.CodeNotFound)

	var p booking.Patient
	a = e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Anna", "phone": "+49 30 1234567", "email": "anna@example.org"})).expect(t, 201)
	a.decode(t, &p)
	// Stored in E.164, the one normalization (service.Service.NormalizePhone).
	if p.ID == 0 || p.Phone != "+49301234567" || p.Email != "anna@example.org" {
		t.Fatalf("%+v", p)
	}
	// A national number is read in the clinic's region (FR by default).
	a = e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Chloé", "phone": "06 00 00 00 00"})).expect(t, 201)
	var fr booking.Patient
	a.decode(t, &fr)
	if fr.Phone != "+33600000000" {
		t.Fatalf("national number stored as %q", fr.Phone)
	}
	e.do(call{method: "GET", path: a.header.Get("Location"), token: e.admin}).expect(t, 200)
	e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Ben"})).expect(t, 201)
	e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Ben", "phone": "call me"})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Ben", "email": "ben at home"})).expect(t, 400, booking.CodeInvalidRequest)

	// Roles.
	for _, tok := range []string{e.patientToken(p.ID), e.token(auth.RoleDoctor, "1")} {
		e.do(post("/api/admin/departments", tok, map[string]any{"name": "Nope"})).expect(t, 403, booking.CodeForbidden)
	}
	a = e.do(post("/api/admin/departments", "", map[string]any{"name": "Nope"})).expect(t, 401, booking.CodeUnauthorized)
	if a.header.Get("WWW-Authenticate") == "" {
		t.Fatal("no WWW-Authenticate")
	}
}

func TestAdminSchedulesAndGeneration(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	base := "/api/admin/doctors/" + strconv.FormatInt(f.doctor.ID, 10)
	body := map[string]any{"weekdays": []int{1, 2, 3, 4, 5}, "startTime": "08:00", "endTime": "12:00", "slotMinutes": 15, "capacity": 1,
		"fee": 0, "horizonDays": 14, "opensAtTime": "07:00", "holdMinutes": 15}
	var sc scheduleAnswer
	e.do(post(base+"/schedules", e.admin, body)).expect(t, 201).decode(t, &sc)
	// Today (Mon 2 March) through 16 March: 11 weekdays of 16 slots.
	if sc.ID == 0 || sc.DoctorID != f.doctor.ID || sc.SlotsCreated != 11*16 || len(sc.Weekdays) != 5 {
		t.Fatalf("%+v", sc)
	}
	var day slotsAnswer
	e.do(call{method: "GET", path: "/api/doctors/" + strconv.FormatInt(f.doctor.ID, 10) + "/slots?date=2026-03-03"}).expect(t, 200).decode(t, &day)
	if len(day.Slots) != 16 {
		t.Fatalf("%d slots", len(day.Slots))
	}
	loc, _ := time.LoadLocation("Europe/Berlin")
	first := day.Slots[0]
	if got := first.StartAt.In(loc).Format("15:04"); got != "08:00" {
		t.Fatalf("first slot at %s local", got)
	}
	// It opens 14 days before, at 07:00 local.
	if want := time.Date(2026, 2, 17, 7, 0, 0, 0, loc); !first.OpensAt.Equal(want) {
		t.Fatalf("opens %v, want %v", first.OpensAt, want)
	}

	// Defaults fill in; a bad schedule is 400; an unknown doctor 404.
	var sc2 scheduleAnswer
	e.do(post(base+"/schedules", e.admin, map[string]any{"weekdays": []int{6}, "startTime": "09:00", "endTime": "10:00", "slotMinutes": 30, "capacity": 2})).
		expect(t, 201).decode(t, &sc2)
	if sc2.HorizonDays != 14 || sc2.OpensAtTime != "07:00" || sc2.HoldMinutes != 15 || sc2.SlotsCreated != 2*2 {
		t.Fatalf("%+v", sc2)
	}
	e.do(post(base+"/schedules", e.admin, map[string]any{"weekdays": []int{1}, "startTime": "12:00", "endTime": "08:00", "slotMinutes": 15, "capacity": 1})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(post("/api/admin/doctors/9999/schedules", e.admin, body)).expect(t, 404, booking.CodeNotFound)

	var list []booking.Schedule
	e.do(call{method: "GET", path: base + "/schedules", token: e.admin}).expect(t, 200).items(t, &list)
	if len(list) != 2 {
		t.Fatalf("%+v", list)
	}

	// Regeneration is idempotent and extends the range.
	var g generateAnswer
	e.do(post(base+"/slots/generate", e.admin, map[string]any{"from": "2026-03-02", "to": "2026-03-16"})).expect(t, 200).decode(t, &g)
	if g.Created != 0 || g.Existing != 11*16+2*2 {
		t.Fatalf("%+v", g)
	}
	e.do(post(base+"/slots/generate", e.admin, map[string]any{"from": "2026-03-17", "to": "2026-03-23"})).expect(t, 200).decode(t, &g)
	if g.Created != 5*16+2 || g.Existing != 0 {
		t.Fatalf("%+v", g)
	}
	e.do(post(base+"/slots/generate", e.admin, map[string]any{"from": "2026-03-17", "to": "2027-03-18"})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(post(base+"/slots/generate", e.admin, map[string]any{"from": "2026-03-17", "to": "2026-03-16"})).expect(t, 400, booking.CodeInvalidRequest)
	e.do(post("/api/admin/doctors/9999/slots/generate", e.admin, map[string]any{"from": "2026-03-17", "to": "2026-03-18"})).expect(t, 404, booking.CodeNotFound)
}

func TestAdminSlots(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	start := t0.Add(48 * time.Hour)
	var sl slotView
	a := e.do(post("/api/admin/slots", e.admin, map[string]any{"doctorId": f.doctor.ID, "startAt": start.Format(time.RFC3339), "durationMinutes": 20, "capacity": 2})).expect(t, 201)
	a.decode(t, &sl)
	if sl.ID == 0 || !sl.StartAt.Equal(start) || !sl.EndAt.Equal(start.Add(20*time.Minute)) || !sl.OpensAt.Equal(t0) || sl.Status != "OPEN" || sl.Remaining != 2 {
		t.Fatalf("%+v", sl)
	}
	if a.header.Get("Location") != "/api/slots/"+strconv.FormatInt(sl.ID, 10) {
		t.Fatalf("Location %q", a.header.Get("Location"))
	}
	e.do(post("/api/admin/slots", e.admin, map[string]any{"doctorId": f.doctor.ID, "startAt": start.Format(time.RFC3339), "durationMinutes": 20, "capacity": 2})).expect(t, 409, booking.CodeConflict)
	e.do(post("/api/admin/slots", e.admin, map[string]any{"doctorId": 9999, "startAt": start.Format(time.RFC3339), "durationMinutes": 20, "capacity": 2})).expect(t, 404, booking.CodeNotFound)
	var paid slotView
	opens := t0.Add(time.Hour)
	e.do(post("/api/admin/slots", e.admin, map[string]any{"doctorId": f.doctor.ID, "startAt": start.Add(time.Hour).Format(time.RFC3339), "durationMinutes": 20, "capacity": 1,
		"opensAt": opens.Format(time.RFC3339), "fee": 1500})).expect(t, 201).decode(t, &paid)
	if paid.Fee != 1500 || !paid.OpensAt.Equal(opens) {
		t.Fatalf("%+v", paid)
	}
	e.do(post("/api/admin/slots", e.admin, map[string]any{"doctorId": f.doctor.ID, "startAt": t0.Add(-time.Hour).Format(time.RFC3339), "durationMinutes": 20, "capacity": 1})).expect(t, 400, booking.CodeInvalidRequest)

	// Two bookings, then capacity changes.
	p1, p2 := e.patient(), e.patient()
	e.do(book(e.patientToken(p1.ID), "1", slotBody(sl.ID))).expect(t, 201)
	e.do(book(e.patientToken(p2.ID), "1", slotBody(sl.ID))).expect(t, 201)
	path := "/api/admin/slots/" + strconv.FormatInt(sl.ID, 10)
	patch := func(body any) call { return call{method: "PATCH", path: path, token: e.admin, body: body} }
	e.do(patch(map[string]any{"capacity": 1})).expect(t, 409, booking.CodeConflict)
	var up slotView
	e.do(patch(map[string]any{"capacity": 3})).expect(t, 200).decode(t, &up)
	if up.Capacity != 3 || up.Booked != 2 || up.Remaining != 1 {
		t.Fatalf("%+v", up)
	}
	e.do(patch(map[string]any{"status": "CLOSED"})).expect(t, 200).decode(t, &up)
	if up.Status != "CLOSED" {
		t.Fatalf("%+v", up)
	}
	p3 := e.patient()
	e.do(book(e.patientToken(p3.ID), "1", slotBody(sl.ID))).expect(t, 409, booking.CodeSlotClosed)
	e.do(patch(map[string]any{"status": "OPEN", "capacity": 2})).expect(t, 200).decode(t, &up)
	if up.Status != "OPEN" || up.Capacity != 2 {
		t.Fatalf("%+v", up)
	}
	e.do(book(e.patientToken(p3.ID), "1", slotBody(sl.ID))).expect(t, 409, booking.CodeSlotFull)
	e.do(call{method: "PATCH", path: "/api/admin/slots/9999", token: e.admin, body: map[string]any{"capacity": 3}}).expect(t, 404, booking.CodeNotFound)

	got, _ := e.db.GetSlot(context.Background(), sl.ID)
	if got.BookedCount != 2 || got.Capacity != 2 {
		t.Fatalf("%+v", got)
	}
}
