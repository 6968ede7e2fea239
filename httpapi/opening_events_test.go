package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// openPlaceStream opens GET /api/openings/{id}/queue/events and returns its
// answer; the stream ends with ctx.
func openPlaceStream(ctx context.Context, t *testing.T, e *env, id int64, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/api/openings/%d/queue/events", e.srv.URL, id), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// nextPlace reads the stream up to its next "place" event.
func nextPlace(t *testing.T, sc *bufio.Scanner) booking.OpeningPlace {
	t.Helper()
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "place":
			var p booking.OpeningPlace
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &p); err != nil {
				t.Fatalf("place event %q: %v", line, err)
			}
			return p
		}
	}
	t.Fatalf("the stream ended without a place: %v", sc.Err())
	return booking.OpeningPlace{}
}

// A person's place as server-sent events: the place at once, then its
// change when the queue is drawn and admitted, the admission token with
// it. Only the person in the queue gets a stream (404 for another
// patient, 403 for staff, 401 without a token, 400 for a bad id), and a
// stream beyond the instance's bound is 503 with Retry-After, before
// anything is streamed.
func TestOpeningPlaceEvents(t *testing.T) {
	e := newEnv(t, withService(func(o *service.Options) { o.WaitingRoom.PlaceStreams = 1 }))
	f := e.fixture()
	ctx := context.Background()
	sc, err := e.db.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	if err != nil {
		t.Fatal(err)
	}
	opens := t0.Add(time.Hour)
	e.slot(f, 10, func(s *booking.Slot) { s.ScheduleID, s.OpensAt = sc.ID, opens })
	var o openingView
	e.do(call{method: "POST", path: "/api/admin/openings", token: e.admin,
		body: map[string]any{"scheduleId": sc.ID, "opensAt": opens.Format(time.RFC3339)}}).expect(t, 201).decode(t, &o)
	p := e.patient()
	tok := e.patientToken(p.ID)
	e.do(call{method: "POST", path: fmt.Sprintf("/api/openings/%d/queue", o.ID), token: tok}).expect(t, 201)

	events := fmt.Sprintf("/api/openings/%d/queue/events", o.ID)
	e.do(call{method: "GET", path: events, token: e.patientToken(e.patient().ID)}).expect(t, 404, booking.CodeNotFound)
	e.do(call{method: "GET", path: events, token: e.token(auth.RoleDoctor, fmt.Sprint(f.doctor.ID))}).expect(t, 403, booking.CodeForbidden)
	e.do(call{method: "GET", path: events}).expect(t, 401, booking.CodeUnauthorized)
	e.do(call{method: "GET", path: "/api/openings/x/queue/events", token: tok, invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
	e.do(call{method: "GET", path: "/api/openings/999/queue/events", token: tok}).expect(t, 404, booking.CodeNotFound)

	sctx, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	res := openPlaceStream(sctx, t, e, o.ID, tok)
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream answered %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(res.Body)
	if first := nextPlace(t, lines); !first.PreQueue || first.Drawn || first.Admitted || first.Queued != 1 {
		t.Fatalf("first place %+v", first)
	}

	// The bound (1 here) is reached: a second stream is refused at once.
	busy := e.doAllow(call{method: "GET", path: events, token: tok}, true).expect(t, 503, booking.CodeOverloaded)
	if busy.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}

	e.clock.set(opens.Add(time.Second))
	if err := e.svc.AdmitDue(ctx); err != nil {
		t.Fatal(err)
	}
	if next := nextPlace(t, lines); !next.Drawn || next.Position != 1 || !next.Admitted || next.Token == "" {
		t.Fatalf("after the draw and admission %+v", next)
	}
}
