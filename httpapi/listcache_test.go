package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
)

// The slot list is served from memory for ListCacheTTL, dropped at once by
// this instance's own bookings and cancels; another instance's change shows
// once the entry expires.
func TestSlotListCache(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 2)
	p, q := e.patient(), e.patient()
	date := sl.StartAt.In(time.FixedZone("CET", 3600)).Format("2006-01-02")
	list := func() int {
		t.Helper()
		var ans slotsAnswer
		e.do(call{method: "GET", path: fmt.Sprintf("/api/doctors/%d/slots?date=%s", f.doctor.ID, date)}).expect(t, 200).decode(t, &ans)
		for _, s := range ans.Slots {
			if s.ID == sl.ID {
				return s.Booked
			}
		}
		t.Fatalf("slot %d not listed", sl.ID)
		return 0
	}
	if list() != 0 {
		t.Fatal("a new slot is listed as booked")
	}
	// This instance books: the list shows it at once.
	var a booking.Appointment
	e.do(book(e.patientToken(p.ID), "k1", slotBody(sl.ID))).expect(t, 201).decode(t, &a)
	if got := list(); got != 1 {
		t.Fatalf("after this instance's booking the list shows %d booked, want 1", got)
	}
	// Another instance books (straight into the database): the cached list
	// may lag for the TTL, no longer.
	res, err := e.db.Book(context.Background(), sl.ID, []booking.BookRequest{{PatientID: q.ID, IdempotencyKey: "k2", Fingerprint: booking.Fingerprint(sl.ID)}}, e.clock.Now())
	if err != nil || res[0].Err != nil {
		t.Fatalf("book behind the API: %v %v", err, res)
	}
	if got := list(); got != 1 {
		t.Fatalf("within the TTL the cached list should still say 1, got %d", got)
	}
	e.clock.add(DefaultListCacheTTL + time.Millisecond)
	if got := list(); got != 2 {
		t.Fatalf("after the TTL the list shows %d booked, want 2", got)
	}
	// This instance's cancel drops the entry too.
	e.do(call{method: "DELETE", path: fmt.Sprintf("/api/appointments/%d", a.ID), token: e.patientToken(p.ID)}).expect(t, 200)
	if got := list(); got != 1 {
		t.Fatalf("after this instance's cancel the list shows %d booked, want 1", got)
	}
	// A conditional GET of an unchanged list is a 304.
	path := fmt.Sprintf("/api/doctors/%d/slots?date=%s", f.doctor.ID, date)
	etag := e.do(call{method: "GET", path: path}).expect(t, 200).header.Get("ETag")
	e.do(call{method: "GET", path: path, header: map[string]string{"If-None-Match": etag}}).expect(t, 304)
}

func TestBenchEchoOnlyWhenEnabled(t *testing.T) {
	off := newEnv(t)
	off.do(call{method: "POST", path: "/bench/echo", body: slotBody(1), invalid: true}).expect(t, 404)

	on := newEnv(t, withConfig(func(c *Config) { c.BenchEndpoints = true }))
	a := on.do(call{method: "POST", path: "/bench/echo", body: slotBody(7), invalid: true})
	if a.status != 200 || !strings.Contains(string(a.body), `"slotId":7`) {
		t.Fatalf("echo = %d %s", a.status, a.body)
	}
	on.do(call{method: "POST", path: "/bench/echo", body: `{"slotId":`, invalid: true}).expect(t, 400)
}

func TestMetricsEndpoint(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	e.do(book(e.patientToken(e.patient().ID), "m1", slotBody(sl.ID))).expect(t, 201)
	a := e.do(call{method: "GET", path: "/metrics"}).expect(t, 200)
	for _, want := range []string{`slotd_http_request_seconds_count{code="201",route="POST /api/appointments"} 1`} {
		if !strings.Contains(string(a.body), want) {
			t.Fatalf("/metrics lacks %q", want)
		}
	}
}
