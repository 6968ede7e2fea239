package httpapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// The series' whole path through HTTP: staff create a series, the public
// lists it, a patient books both doses in one request (201, every
// appointment named), a retry answers 200 with the same booking, the
// refusals are problems that change nothing, and cancelling dose 1 cancels
// dose 2.
func TestSeriesBookings(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	at := func(days int) func(*booking.Slot) {
		return func(s *booking.Slot) {
			s.StartAt = t0.Add(48*time.Hour + time.Duration(days)*24*time.Hour)
			s.EndAt = s.StartAt.Add(30 * time.Minute)
		}
	}
	first, second, early := e.slot(f, 2, at(0)), e.slot(f, 1, at(22)), e.slot(f, 2, at(10))
	p := e.patient()
	tok := e.patientToken(p.ID)

	e.do(call{method: "POST", path: "/api/admin/dose-series", token: tok, body: map[string]any{"name": "x", "windows": []any{}}, invalid: true}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "POST", path: "/api/admin/dose-series", token: e.admin, body: map[string]any{"name": "Two doses", "windows": []any{}}, invalid: true}).
		expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/admin/dose-series", token: e.admin, body: map[string]any{"name": "Two doses",
		"windows": []any{map[string]int{"minDays": 30, "maxDays": 20}}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	var ds booking.DoseSeries
	e.do(call{method: "POST", path: "/api/admin/dose-series", token: e.admin, body: map[string]any{"name": "Two doses",
		"windows": []any{map[string]int{"minDays": 21, "maxDays": 28}}}}).expect(t, 201).decode(t, &ds)
	var list struct{ Items []booking.DoseSeries }
	e.do(call{method: "GET", path: "/api/dose-series"}).expect(t, 200).decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].ID != ds.ID {
		t.Fatalf("listed %+v", list.Items)
	}

	book := func(key string, slots ...int64) call {
		return call{method: "POST", path: "/api/series-bookings", token: tok, header: map[string]string{"Idempotency-Key": key},
			body: map[string]any{"seriesId": ds.ID, "slotIds": slots}}
	}
	before := e.snapshot()
	e.do(book("bad-window", first.ID, early.ID)).expect(t, 409, booking.CodeDoseOutsideWindow)
	e.do(book("bad-count", first.ID, second.ID, early.ID)).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/series-bookings", token: tok, header: map[string]string{"Idempotency-Key": "one"},
		body: map[string]any{"seriesId": ds.ID, "slotIds": []int64{}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/series-bookings", token: tok, body: map[string]any{"seriesId": ds.ID, "slotIds": []int64{first.ID, second.ID}}, invalid: true}).
		expect(t, 400, booking.CodeMissingIdempotencyKey)
	e.do(call{method: "POST", path: "/api/series-bookings", token: tok, header: map[string]string{"Idempotency-Key": "nope"},
		body: map[string]any{"seriesId": ds.ID + 1, "slotIds": []int64{first.ID, second.ID}}}).expect(t, 404, booking.CodeNotFound)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused series changed the database")
	}

	e.clock.add(time.Minute) // a fresh booking budget
	var sb booking.SeriesBooking
	a := e.do(book("s-1", first.ID, second.ID)).expect(t, 201)
	a.decode(t, &sb)
	if len(sb.Appointments) != 2 || sb.Appointments[0].SlotID != first.ID || sb.Appointments[1].SlotID != second.ID ||
		a.header.Get("Location") != fmt.Sprint("/api/appointments/", sb.Appointments[0].ID) {
		t.Fatalf("series booked %+v (Location %s)", sb, a.header.Get("Location"))
	}
	var again booking.SeriesBooking
	e.do(book("s-1", first.ID, second.ID)).expect(t, 200).decode(t, &again)
	if again.ID != sb.ID || again.Appointments[1].ID != sb.Appointments[1].ID {
		t.Fatalf("retry answered %+v, want %+v", again, sb)
	}
	e.do(book("s-1", first.ID, early.ID)).expect(t, 422, booking.CodeKeyReused)

	// dose 2's slot is now full: another patient's series is refused whole.
	q := e.patient()
	e.do(call{method: "POST", path: "/api/series-bookings", token: e.patientToken(q.ID), header: map[string]string{"Idempotency-Key": "q"},
		body: map[string]any{"seriesId": ds.ID, "slotIds": []int64{first.ID, second.ID}}}).expect(t, 409, booking.CodeSlotFull)
	var sl booking.Slot
	e.do(call{method: "GET", path: fmt.Sprint("/api/slots/", first.ID)}).expect(t, 200).decode(t, &sl)
	if sl.BookedCount != 1 {
		t.Fatalf("dose 1's slot holds %d after a series refused at dose 2", sl.BookedCount)
	}

	e.do(call{method: "DELETE", path: fmt.Sprint("/api/appointments/", sb.Appointments[0].ID), token: tok}).expect(t, 200)
	var dose2 booking.Appointment
	e.do(call{method: "GET", path: fmt.Sprint("/api/appointments/", sb.Appointments[1].ID), token: tok}).expect(t, 200).decode(t, &dose2)
	if dose2.Status != booking.StatusCancelled {
		t.Fatalf("dose 2 is %s after dose 1 was cancelled", dose2.Status)
	}
	var rep struct{ BrokenSeries []int64 }
	e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.admin}).expect(t, 200).decode(t, &rep)
	if rep.BrokenSeries == nil || len(rep.BrokenSeries) != 0 {
		t.Fatalf("reconciliation's brokenSeries %v", rep.BrokenSeries)
	}
}

// The next dose through HTTP: dose 1 booked alone, dose 2 outside its
// window refused as dose-outside-window and changing nothing, another patient's booking not found, dose 2 inside it
// booked (201, Location the new dose), its retry answered 200.
func TestNextDose(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	at := func(days int) func(*booking.Slot) {
		return func(s *booking.Slot) {
			s.StartAt = t0.Add(48*time.Hour + time.Duration(days)*24*time.Hour)
			s.EndAt = s.StartAt.Add(30 * time.Minute)
		}
	}
	first, inside, late := e.slot(f, 2, at(0)), e.slot(f, 1, at(22)), e.slot(f, 2, at(30))
	p, q := e.patient(), e.patient()
	tok := e.patientToken(p.ID)
	var ds booking.DoseSeries
	e.do(call{method: "POST", path: "/api/admin/dose-series", token: e.admin, body: map[string]any{"name": "Two doses",
		"windows": []any{map[string]int{"minDays": 21, "maxDays": 28}}}}).expect(t, 201).decode(t, &ds)
	var sb booking.SeriesBooking
	e.do(call{method: "POST", path: "/api/series-bookings", token: tok, header: map[string]string{"Idempotency-Key": "d1"},
		body: map[string]any{"seriesId": ds.ID, "slotIds": []int64{first.ID}}}).expect(t, 201).decode(t, &sb)
	if len(sb.Appointments) != 1 {
		t.Fatalf("dose 1 alone: %+v", sb)
	}
	next := func(tok, key string, body map[string]any) call {
		return call{method: "POST", path: fmt.Sprintf("/api/series-bookings/%d/doses", sb.ID), token: tok,
			header: map[string]string{"Idempotency-Key": key}, body: body}
	}
	before := e.snapshot()
	a := e.do(next(tok, "out", map[string]any{"slotId": late.ID})).expect(t, 409, booking.CodeDoseOutsideWindow)
	if pr := a.problem(t); pr.SlotID != late.ID {
		t.Fatalf("problem %+v, want slotId %d", pr, late.ID)
	}
	e.do(next(e.patientToken(q.ID), "theirs", map[string]any{"slotId": inside.ID})).expect(t, 404, booking.CodeNotFound)
	zero := next(tok, "zero", map[string]any{"slotId": 0})
	zero.invalid = true
	e.do(zero).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/series-bookings/%d/doses", sb.ID), token: tok, body: map[string]any{"slotId": inside.ID}, invalid: true}).
		expect(t, 400, booking.CodeMissingIdempotencyKey)
	e.do(next(e.admin, "staff", map[string]any{"slotId": inside.ID})).expect(t, 400, booking.CodeInvalidRequest)
	if after := e.snapshot(); after != before {
		t.Fatal("a refused dose changed the database")
	}

	e.clock.add(time.Minute) // a fresh booking budget
	var two booking.SeriesBooking
	r := e.do(next(tok, "d2", map[string]any{"slotId": inside.ID})).expect(t, 201)
	r.decode(t, &two)
	if two.ID != sb.ID || len(two.Appointments) != 2 || two.Appointments[1].SlotID != inside.ID ||
		r.header.Get("Location") != fmt.Sprint("/api/appointments/", two.Appointments[1].ID) {
		t.Fatalf("dose 2 booked %+v (Location %s)", two, r.header.Get("Location"))
	}
	var again booking.SeriesBooking
	e.do(next(tok, "d2", map[string]any{"slotId": inside.ID})).expect(t, 200).decode(t, &again)
	if len(again.Appointments) != 2 || again.Appointments[1].ID != two.Appointments[1].ID {
		t.Fatalf("retry answered %+v", again)
	}
	e.do(next(tok, "d3", map[string]any{"slotId": late.ID})).expect(t, 409, booking.CodeConflict)

	// Where the patient finds the booking: their list, not another's.
	var mine, theirs struct{ Items []booking.SeriesBooking }
	e.do(call{method: "GET", path: "/api/me/series-bookings", token: tok}).expect(t, 200).decode(t, &mine)
	if len(mine.Items) != 1 || mine.Items[0].ID != sb.ID || len(mine.Items[0].Appointments) != 2 {
		t.Fatalf("my series bookings %+v", mine.Items)
	}
	e.do(call{method: "GET", path: "/api/me/series-bookings", token: e.patientToken(q.ID)}).expect(t, 200).decode(t, &theirs)
	if len(theirs.Items) != 0 {
		t.Fatalf("another patient lists %+v", theirs.Items)
	}
	e.do(call{method: "GET", path: "/api/me/series-bookings?limit=0", token: tok, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
}
