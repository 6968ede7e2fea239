package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// Clinic administration (docs/clinic.md) through the API, on both stores.

// onBothStores runs fn with an API over a fresh SQLite store and a fresh
// PostgreSQL one.
func onBothStores(t *testing.T, fn func(t *testing.T, e *env)) {
	stores := map[string]func(t *testing.T) booking.Store{
		"sqlite": func(t *testing.T) booking.Store {
			ctx := context.Background()
			s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			return s
		},
		"postgres": func(t *testing.T) booking.Store {
			dsn := pgtest.DSN(t)
			ctx := context.Background()
			keys := pii.New()
			if err := postgres.MigrateKeys(ctx, dsn, keys); err != nil {
				t.Fatal(err)
			}
			s, err := postgres.Open(ctx, dsn, postgres.Options{Keys: keys})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			st := stores[name](t)
			signer := mustSigner(t)
			e := &env{t: t, store: st, signer: signer, clock: newClock(t0), logs: &syncBuffer{}, router: openAPIRouter(t)}
			svc := service.NewService(st, service.Options{Now: e.clock.Now, Timeout: 10 * time.Second})
			e.srv = httptest.NewServer(New(Config{Service: svc, Store: st, Signer: signer, Now: e.clock.Now,
				Logger: slog.New(slog.NewJSONHandler(e.logs, nil))}))
			t.Cleanup(e.srv.Close)
			e.admin = e.token(auth.RoleAdmin, "1")
			fn(t, e)
		})
	}
}

// clinic is the data of one test, made through the API.
type clinic struct {
	e               *env
	dept, doc, doc2 int64
	next            int
}

func newClinic(e *env) *clinic {
	c := &clinic{e: e}
	var d booking.Department
	e.do(call{method: "POST", path: "/api/admin/departments", token: e.admin, body: map[string]any{"name": "Cardiology"}}).
		expect(e.t, 201).decode(e.t, &d)
	c.dept = d.ID
	c.doc = c.doctor("Dr. Weber", d.ID)
	c.doc2 = c.doctor("Dr. Roth", d.ID)
	return c
}

func (c *clinic) doctor(name string, dept int64) int64 {
	var doc booking.Doctor
	c.e.do(call{method: "POST", path: "/api/admin/doctors", token: c.e.admin,
		body: map[string]any{"name": name, "departmentId": dept, "timezone": "Europe/Berlin"}}).expect(c.e.t, 201).decode(c.e.t, &doc)
	if !doc.Active {
		c.e.t.Fatalf("a new doctor is inactive: %+v", doc)
	}
	return doc.ID
}

func (c *clinic) patient() int64 {
	var p booking.Patient
	c.e.do(call{method: "POST", path: "/api/admin/patients", token: c.e.admin, body: map[string]any{"name": "Anna"}}).
		expect(c.e.t, 201).decode(c.e.t, &p)
	return p.ID
}

// slot makes a 30-minute slot of doctor on day 3 (Thursday 5 March) at
// a fresh half hour from 08:00 UTC.
func (c *clinic) slot(doctor int64) int64 {
	start := time.Date(2026, 3, 5, 8, 0, 0, 0, time.UTC).Add(time.Duration(c.next) * 30 * time.Minute)
	c.next++
	return c.slotAt(doctor, start, 30).ID
}

func (c *clinic) slotAt(doctor int64, start time.Time, minutes int) slotView {
	var sl slotView
	c.e.do(call{method: "POST", path: "/api/admin/slots", token: c.e.admin,
		body: map[string]any{"doctorId": doctor, "startAt": start, "durationMinutes": minutes, "capacity": 2}}).
		expect(c.e.t, 201).decode(c.e.t, &sl)
	return sl
}

func (c *clinic) book(token string, slot int64, patient int64) answer {
	body := map[string]any{"slotId": slot}
	if patient != 0 {
		body["patientId"] = patient
	}
	c.next++
	c.e.clock.add(2 * time.Second) // within the per-patient booking rate
	return c.e.do(call{method: "POST", path: "/api/appointments", token: token, body: body,
		header: map[string]string{"Idempotency-Key": fmt.Sprintf("k-%d-%d", slot, c.next)}})
}

// day lists a doctor's slots of a local day.
func (c *clinic) day(doctor int64, date string) []slotView {
	var d struct {
		Slots []slotView `json:"slots"`
	}
	c.e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors/%d/slots?date=%s", doctor, date)}).expect(c.e.t, 200).decode(c.e.t, &d)
	return d.Slots
}

func (c *clinic) policy(p booking.Policy) {
	c.e.do(call{method: "PUT", path: "/api/admin/policy", token: c.e.admin, body: p}).expect(c.e.t, 200)
}

func (c *clinic) slotStatus(id int64) string {
	var sl slotView
	c.e.do(call{method: "GET", path: fmt.Sprintf("/api/slots/%d", id)}).expect(c.e.t, 200).decode(c.e.t, &sl)
	return sl.Status
}

// Item 8: a doctor's slots never overlap, and a schedule says so.
func TestSlotsNeverOverlap(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		c := newClinic(e)
		at := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC) // 11:00 in Berlin
		c.slotAt(c.doc, at, 45)
		e.do(call{method: "POST", path: "/api/admin/slots", token: e.admin,
			body: map[string]any{"doctorId": c.doc, "startAt": at.Add(30 * time.Minute), "durationMinutes": 15, "capacity": 1}}).
			expect(t, 409, booking.CodeSlotOverlap)
		c.slotAt(c.doc, at.Add(45*time.Minute), 15)  // adjacent is fine
		c.slotAt(c.doc2, at.Add(30*time.Minute), 15) // another doctor is fine

		sched := func(start, end string) map[string]any {
			return map[string]any{"weekdays": []int{1, 2}, "startTime": start, "endTime": end, "slotMinutes": 30, "capacity": 1}
		}
		path := fmt.Sprintf("/api/admin/doctors/%d/schedules", c.doc2)
		e.do(call{method: "POST", path: path, token: e.admin, body: sched("08:00", "12:00")}).expect(t, 201)
		e.do(call{method: "POST", path: path, token: e.admin, body: sched("11:30", "13:00")}).expect(t, 409, booking.CodeSlotOverlap)
		e.do(call{method: "POST", path: path, token: e.admin, body: sched("12:00", "13:00")}).expect(t, 201)
		// A schedule over an existing slot is reported, not stored.
		c.slotAt(c.doc, time.Date(2026, 3, 9, 8, 15, 0, 0, time.UTC), 15)
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/doctors/%d/schedules", c.doc), token: e.admin,
			body: map[string]any{"weekdays": []int{1}, "startTime": "09:00", "endTime": "10:00", "slotMinutes": 30, "capacity": 1}}).
			expect(t, 409, booking.CodeSlotOverlap)
		var none []booking.Schedule
		e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/doctors/%d/schedules", c.doc), token: e.admin}).expect(t, 200).items(t, &none)
		if len(none) != 0 {
			t.Fatalf("the overlapping schedule was stored: %+v", none)
		}
		var ss []booking.Schedule
		e.do(call{method: "GET", path: path, token: e.admin}).expect(t, 200).items(t, &ss)
		if len(ss) != 2 {
			t.Fatalf("%d schedules, want the two that do not overlap", len(ss))
		}
	})
}

// Item 1: closures, and what lifting one reopens.
func TestClosures(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		c := newClinic(e)
		p := c.patient()
		pt := e.patientToken(p)
		a, b, manual := c.slot(c.doc), c.slot(c.doc2), c.slot(c.doc)
		c.book(pt, a, 0).expect(t, 201)
		closed := "CLOSED"
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", manual), token: e.admin,
			body: map[string]any{"status": closed}}).expect(t, 200)

		day := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
		closure := map[string]any{"scope": "department", "departmentId": c.dept, "from": day, "to": day.Add(24 * time.Hour), "reason": "training day"}
		var res booking.SuspensionResult
		e.do(call{method: "POST", path: "/api/admin/closures", token: e.admin, body: closure}).expect(t, 201).decode(t, &res)
		if res.SlotsClosed != 2 || res.Cancelled != 1 || res.PatientsTold != 1 || res.Suspension.Scope != "department" {
			t.Fatalf("closure = %+v, want the two open slots closed and one appointment cancelled", res)
		}
		e.do(call{method: "POST", path: "/api/admin/closures", token: e.admin, body: closure}).expect(t, 200)
		// Closed by the closure: PATCH cannot reopen it, and it books nothing.
		open := "OPEN"
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", b), token: e.admin,
			body: map[string]any{"status": open}}).expect(t, 409, booking.CodeSlotSuspended)
		c.book(pt, b, 0).expect(t, 409, booking.CodeSlotClosed)

		// A clinic closure over the same day, lifted first, reopens nothing
		// the department's closure still covers.
		var clinicWide booking.SuspensionResult
		e.do(call{method: "POST", path: "/api/admin/closures", token: e.admin,
			body: map[string]any{"scope": "clinic", "from": day, "to": day.Add(12 * time.Hour), "reason": "holiday"}}).
			expect(t, 201).decode(t, &clinicWide)
		var lift booking.LiftResult
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/suspensions/%d/lift", clinicWide.Suspension.ID), token: e.admin}).
			expect(t, 200).decode(t, &lift)
		if lift.SlotsReopened != 0 || c.slotStatus(b) != closed {
			t.Fatalf("lifting the clinic closure reopened %d", lift.SlotsReopened)
		}
		var standing []booking.Suspension
		e.do(call{method: "GET", path: "/api/admin/suspensions?standing=true", token: e.admin}).expect(t, 200).items(t, &standing)
		if len(standing) != 1 || standing[0].ID != res.Suspension.ID {
			t.Fatalf("standing = %+v", standing)
		}

		// While it stands, generation skips the period.
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/doctors/%d/schedules", c.doc2), token: e.admin,
			body: map[string]any{"weekdays": []int{4}, "startTime": "14:00", "endTime": "15:00", "slotMinutes": 30, "capacity": 1}}).expect(t, 201)
		for _, sl := range c.day(c.doc2, "2026-03-05") {
			if sl.ID != b {
				t.Fatalf("a slot was generated inside the closure: %+v", sl)
			}
		}

		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/suspensions/%d/lift", res.Suspension.ID), token: e.admin}).
			expect(t, 200).decode(t, &lift)
		if lift.SlotsReopened != 2 || c.slotStatus(a) != open || c.slotStatus(b) != open || c.slotStatus(manual) != closed {
			t.Fatalf("lift reopened %d: a %s, b %s, manual %s; want a and b open, the manually closed one closed",
				lift.SlotsReopened, c.slotStatus(a), c.slotStatus(b), c.slotStatus(manual))
		}
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/suspensions/%d/lift", res.Suspension.ID), token: e.admin}).
			expect(t, 409, booking.CodeConflict)
		c.book(pt, b, 0).expect(t, 201)
		e.do(call{method: "POST", path: "/api/admin/closures", token: e.admin,
			body: map[string]any{"scope": "department", "from": day, "to": day.Add(time.Hour), "reason": "x"}}).expect(t, 400)
		e.do(call{method: "POST", path: "/api/admin/closures", token: e.admin,
			body: map[string]any{"scope": "department", "departmentId": 999999, "from": day, "to": day.Add(time.Hour), "reason": "x"}}).expect(t, 404)
	})
}

// Item 3: the caps are on by default; the cutoff and the no-show rule
// once set; complete and no-show only once started.
func TestPolicies(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		c := newClinic(e)
		p := c.patient()
		pt := e.patientToken(p)
		var pol booking.Policy
		e.do(call{method: "GET", path: "/api/admin/policy", token: e.admin}).expect(t, 200).decode(t, &pol)
		if pol != booking.DefaultPolicy {
			t.Fatalf("default policy %+v, want %+v", pol, booking.DefaultPolicy)
		}
		// Three a day, then 409 (for an admin booking for the patient too).
		var first booking.Appointment
		c.book(pt, c.slot(c.doc), 0).expect(t, 201).decode(t, &first)
		c.book(pt, c.slot(c.doc), 0).expect(t, 201)
		c.book(pt, c.slot(c.doc), 0).expect(t, 201)
		c.book(pt, c.slot(c.doc), 0).expect(t, 409, booking.CodeLimitReached)
		c.book(e.admin, c.slot(c.doc), p).expect(t, 409, booking.CodeLimitReached)
		c.policy(booking.Policy{MaxActive: 3})
		other := c.slotAt(c.doc, time.Date(2026, 3, 6, 8, 0, 0, 0, time.UTC), 30)
		c.book(pt, other.ID, 0).expect(t, 409, booking.CodeLimitReached)
		c.policy(booking.Policy{})
		c.book(pt, other.ID, 0).expect(t, 201)
		e.do(call{method: "PUT", path: "/api/admin/policy", token: e.admin, body: map[string]any{"maxActive": -1,
			"maxPerDay": 0, "cancelCutoffHours": 0, "noShowLimit": 0, "noShowBlockDays": 0}, invalid: true}).expect(t, 400)

		// Cancel cutoff: patients until 80 h before, staff always; the
		// same for moving the appointment.
		c.policy(booking.Policy{CancelCutoffHours: 80}) // the appointment starts in 74 h
		path := fmt.Sprintf("/api/appointments/%d", first.ID)
		moveTo := c.slot(c.doc)
		e.do(rescheduleCall(pt, "move-late", first.ID, moveTo)).expect(t, 409, booking.CodeCancelCutoff)
		e.do(rescheduleCall(e.admin, "move-staff", first.ID, moveTo)).expect(t, 200)
		e.do(call{method: "DELETE", path: path, token: pt}).expect(t, 409, booking.CodeCancelCutoff)
		e.do(call{method: "DELETE", path: path, token: e.admin}).expect(t, 200)

		// Complete and no-show only once started.
		var second booking.Appointment
		c.policy(booking.Policy{NoShowLimit: 1, NoShowBlockDays: 30})
		late := c.slotAt(c.doc, time.Date(2026, 3, 7, 8, 0, 0, 0, time.UTC), 30)
		c.book(pt, late.ID, 0).expect(t, 201).decode(t, &second)
		noShow := fmt.Sprintf("/api/admin/appointments/%d/no-show", second.ID)
		e.do(call{method: "POST", path: noShow, token: e.admin}).expect(t, 409, booking.CodeNotStarted)
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/appointments/%d/complete", second.ID), token: e.admin}).
			expect(t, 409, booking.CodeNotStarted)
		e.clock.set(late.StartAt.Add(10 * time.Minute))
		e.do(call{method: "POST", path: noShow, token: e.admin}).expect(t, 200)

		// One no-show blocks self-booking for 30 days; staff still book.
		next := c.slotAt(c.doc, time.Date(2026, 3, 20, 8, 0, 0, 0, time.UTC), 30)
		c.book(pt, next.ID, 0).expect(t, 409, booking.CodeBookingBlocked)
		c.book(e.admin, next.ID, p).expect(t, 201)
		e.clock.set(late.StartAt.Add(31 * 24 * time.Hour))
		after := c.slotAt(c.doc, time.Date(2026, 4, 20, 8, 0, 0, 0, time.UTC), 30)
		c.book(pt, after.ID, 0).expect(t, 201)
	})
}

// Item 2: editing and deactivating, and a schedule's edit or end.
func TestEditing(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		c := newClinic(e)
		var d booking.Department
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/departments/%d", c.dept), token: e.admin,
			body: map[string]any{"name": "Cardiology (2nd floor)"}}).expect(t, 200).decode(t, &d)
		if d.Name != "Cardiology (2nd floor)" {
			t.Fatalf("department = %+v", d)
		}
		e.do(call{method: "PATCH", path: "/api/admin/departments/999999", token: e.admin, body: map[string]any{"name": "X"}}).expect(t, 404)

		p := c.patient()
		var pat booking.Patient
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p), token: e.admin,
			body: map[string]any{"phone": "+49 30 7654321", "email": "anna@example.org"}}).expect(t, 200).decode(t, &pat)
		if pat.Phone != "+49307654321" || pat.Email != "anna@example.org" || !pat.Active {
			t.Fatalf("patient = %+v", pat)
		}
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p), token: e.admin,
			body: map[string]any{"phone": "not a phone"}}).expect(t, 400)
		pat = booking.Patient{}
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p), token: e.admin,
			body: map[string]any{"email": ""}}).expect(t, 200).decode(t, &pat)
		if pat.Email != "" {
			t.Fatalf("an empty e-mail must remove it: %+v", pat)
		}

		// A schedule: book one generated slot, then edit the pattern.
		path := fmt.Sprintf("/api/admin/doctors/%d/schedules", c.doc)
		var sc scheduleAnswer
		e.do(call{method: "POST", path: path, token: e.admin, body: map[string]any{"weekdays": []int{4},
			"startTime": "08:00", "endTime": "10:00", "slotMinutes": 30, "capacity": 1}}).expect(t, 201).decode(t, &sc)
		if sc.SlotsCreated != 8 {
			t.Fatalf("%d slots, want 4 on each of the two Thursdays in the horizon", sc.SlotsCreated)
		}
		sls := c.day(c.doc, "2026-03-05")
		var booked booking.Appointment
		c.book(e.patientToken(p), sls[0].ID, 0).expect(t, 201).decode(t, &booked)
		var up scheduleUpdateAnswer
		e.do(call{method: "PUT", path: fmt.Sprintf("/api/admin/schedules/%d", sc.ID), token: e.admin, body: map[string]any{
			"weekdays": []int{4}, "startTime": "08:00", "endTime": "10:00", "slotMinutes": 60, "capacity": 1,
			"endDate": "2026-03-10", "policy": map[string]any{"maxPerDay": 1}}}).expect(t, 200).decode(t, &up)
		if up.SlotsDeleted != 7 || up.EndDate != "2026-03-10" || up.Policy.MaxPerDay == nil || *up.Policy.MaxPerDay != 1 {
			t.Fatalf("update = %+v, want the 7 slots without appointments deleted, ended on 10 March", up)
		}
		sls = c.day(c.doc, "2026-03-05")
		if len(sls) != 2 || sls[0].ID != booked.SlotID {
			t.Fatalf("5 March after the edit: %+v; want the booked slot kept and one new hour after it", sls)
		}
		if sls = c.day(c.doc, "2026-03-12"); len(sls) != 0 {
			t.Fatalf("slots after the schedule's end: %+v", sls)
		}
		e.do(call{method: "PUT", path: "/api/admin/schedules/999999", token: e.admin, body: map[string]any{
			"weekdays": []int{4}, "startTime": "08:00", "endTime": "10:00", "slotMinutes": 60, "capacity": 1}}).expect(t, 404)

		// A deactivated doctor: hidden, no generation, appointments kept.
		var doc booking.Doctor
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/doctors/%d", c.doc), token: e.admin,
			body: map[string]any{"active": false}}).expect(t, 200).decode(t, &doc)
		if doc.Active {
			t.Fatalf("doctor = %+v", doc)
		}
		var docs []booking.Doctor
		e.do(call{method: "GET", path: "/api/doctors"}).expect(t, 200).items(t, &docs)
		if len(docs) != 1 || docs[0].ID != c.doc2 {
			t.Fatalf("listing = %+v, want only the active doctor", docs)
		}
		// Staff still see it, with its flag, to reactivate it.
		e.do(call{method: "GET", path: "/api/admin/doctors", token: e.admin}).expect(t, 200).items(t, &docs)
		if len(docs) != 2 || docs[0].ID != c.doc || docs[0].Active || docs[1].ID != c.doc2 || !docs[1].Active {
			t.Fatalf("staff listing = %+v, want both doctors, the deactivated one marked", docs)
		}
		var gen generateAnswer
		e.do(call{method: "POST", path: fmt.Sprintf("/api/admin/doctors/%d/slots/generate", c.doc), token: e.admin,
			body: map[string]any{"from": "2026-03-01", "to": "2026-03-31"}}).expect(t, 200).decode(t, &gen)
		if gen.Created != 0 {
			t.Fatalf("a deactivated doctor got %d new slots", gen.Created)
		}
		var kept booking.Appointment
		e.do(call{method: "GET", path: fmt.Sprintf("/api/appointments/%d", booked.ID), token: e.admin}).expect(t, 200).decode(t, &kept)
		if kept.Status != booking.StatusBooked {
			t.Fatalf("the deactivated doctor's appointment became %s", kept.Status)
		}

		// A deactivated patient books no more.
		e.do(call{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p), token: e.admin,
			body: map[string]any{"active": false}}).expect(t, 200)
		c.book(e.patientToken(p), c.slot(c.doc2), 0).expect(t, 409, booking.CodeBookingBlocked)
	})
}

// Every new endpoint is admin only: no token, a patient's or a doctor's
// (even naming their own ids) is refused and changes nothing.
func TestClinicEditAuthorization(t *testing.T) {
	onBothStores(t, func(t *testing.T, e *env) {
		c := newClinic(e)
		p := c.patient()
		day := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
		ops := []call{
			{method: "PATCH", path: fmt.Sprintf("/api/admin/departments/%d", c.dept), body: map[string]any{"name": "X"}},
			{method: "PATCH", path: fmt.Sprintf("/api/admin/doctors/%d", c.doc), body: map[string]any{"active": false}},
			{method: "PATCH", path: fmt.Sprintf("/api/admin/patients/%d", p), body: map[string]any{"name": "Mallory"}},
			{method: "PUT", path: "/api/admin/schedules/1", body: map[string]any{"weekdays": []int{1}, "startTime": "08:00",
				"endTime": "09:00", "slotMinutes": 30, "capacity": 1}},
			{method: "GET", path: "/api/admin/policy"},
			{method: "GET", path: "/api/admin/doctors"},
			{method: "PUT", path: "/api/admin/policy", body: booking.Policy{}},
			{method: "POST", path: "/api/admin/closures", body: map[string]any{"scope": "clinic", "from": day, "to": day.Add(time.Hour), "reason": "x"}},
			{method: "GET", path: "/api/admin/suspensions"},
			{method: "POST", path: "/api/admin/suspensions/1/lift"},
		}
		for _, op := range ops {
			for _, who := range []struct {
				token string
				want  int
			}{{"", 401}, {e.patientToken(p), 403}, {e.token(auth.RoleDoctor, fmt.Sprint(c.doc)), 403}} {
				op.token = who.token
				e.do(op).expect(t, who.want)
			}
		}
		var pol booking.Policy
		e.do(call{method: "GET", path: "/api/admin/policy", token: e.admin}).expect(t, 200).decode(t, &pol)
		var pat booking.Patient
		e.do(call{method: "GET", path: fmt.Sprintf("/api/admin/patients/%d", p), token: e.admin}).expect(t, 200).decode(t, &pat)
		var docs []booking.Doctor
		e.do(call{method: "GET", path: "/api/doctors"}).expect(t, 200).items(t, &docs)
		if pol != booking.DefaultPolicy || pat.Name != "Anna" || len(docs) != 2 {
			t.Fatalf("refused calls changed something: %+v %+v %d doctors", pol, pat, len(docs))
		}
		// Another patient's appointment stays theirs under the cutoff rule.
		other := c.patient()
		var a booking.Appointment
		c.book(e.patientToken(other), c.slot(c.doc), 0).expect(t, 201).decode(t, &a)
		e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", a.ID), token: e.patientToken(p)}).expect(t, 404)
	})
}
