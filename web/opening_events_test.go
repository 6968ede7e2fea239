package web

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// TestOpeningPageEvents: once the patient has a place, the waiting room's
// page follows it from an event stream (data-events): the place region at
// once, then again when the queue is drawn and admits them, and an
// "admitted" event that tells the page to fetch the region (whose answer
// sets the admission's cookie). A signed-out visitor and a patient without
// a place get no stream, and the page keeps its poll as the fallback.
func TestOpeningPageEvents(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	s := &pagesSite{site: newSite(t, withClock(now))}
	ctx := context.Background()
	sc, err := s.store.CreateSchedule(ctx, booking.Schedule{DoctorID: s.doctor.ID, Weekdays: []time.Weekday{time.Monday},
		StartTime: "08:00", EndTime: "09:00", SlotMinutes: 30, Capacity: 1, HorizonDays: 7})
	must(t, err)
	opens := now().Add(time.Hour).Truncate(time.Second)
	start := now().Add(72 * time.Hour).Truncate(time.Hour)
	_, err = s.store.CreateSlot(ctx, booking.Slot{DoctorID: s.doctor.ID, ScheduleID: sc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 5, OpensAt: opens, Status: booking.SlotOpen, HoldSeconds: 900})
	must(t, err)
	o, err := s.svc.AnnounceOpening(ctx, sc.ID, opens)
	must(t, err)
	path := "/openings/" + itoa(o.ID)

	if status, _ := s.statusAs(t, "", "en", path+"/events"); status == http.StatusOK {
		t.Fatal("a signed-out visitor got a stream")
	}
	if status, _ := s.statusAs(t, "patient", "en", path+"/events"); status != http.StatusNotFound {
		t.Fatalf("a patient without a place: %d, want 404", status)
	}
	if page := mainOf(s.getAs(t, "patient", "en", path)); strings.Contains(page, "data-events") {
		t.Fatalf("a stream offered before taking a place:\n%s", page)
	}
	if status, body := s.postAs(t, "patient", "en", path+"/queue", url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("taking a place: %d %s", status, body)
	}
	page := mainOf(s.getAs(t, "patient", "en", path))
	if !strings.Contains(page, `data-events="`+path+`/events"`) || !strings.Contains(page, `data-live="`+path+`?partial=1"`) {
		t.Fatalf("the page with a place offers no stream and poll:\n%s", page)
	}

	sctx, stop := context.WithTimeout(ctx, 20*time.Second)
	defer stop()
	req, err := http.NewRequestWithContext(sctx, "GET", s.url+path+"/events", nil)
	must(t, err)
	tok, _ := s.signer.MintPage(auth.RolePatient, strconv.FormatInt(s.patients[0].ID, 10), time.Hour)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(res.Body)
	// next reads the stream to its next event and returns its name and data.
	next := func() (string, string) {
		t.Helper()
		event, data := "", ""
		for lines.Scan() {
			line := lines.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data += strings.TrimPrefix(line, "data: ") + "\n"
			case line == "" && event != "":
				return event, data
			}
		}
		t.Fatalf("the stream ended: %v", lines.Err())
		return "", ""
	}
	if ev, data := next(); ev != "place" || !strings.Contains(data, "data-prequeue") {
		t.Fatalf("first event %q:\n%s", ev, data)
	}
	clock.Store(opens.Add(time.Second).UnixNano())
	must(t, s.svc.AdmitDue(ctx))
	if ev, data := next(); ev != "place" || !strings.Contains(data, "data-admitted") || !strings.Contains(data, `href="/doctors/`+itoa(s.doctor.ID)+`"`) {
		t.Fatalf("after the admission %q:\n%s", ev, data)
	}
	if ev, _ := next(); ev != "admitted" {
		t.Fatalf("after the admitted place: %q, want admitted", ev)
	}
}
