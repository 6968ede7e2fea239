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
	e.do(book("bad-window", first.ID, early.ID)).expect(t, 400, booking.CodeInvalidRequest)
	e.do(book("bad-count", first.ID, second.ID, early.ID)).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "POST", path: "/api/series-bookings", token: tok, header: map[string]string{"Idempotency-Key": "one"},
		body: map[string]any{"seriesId": ds.ID, "slotIds": []int64{first.ID}}, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
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
