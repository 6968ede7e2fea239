package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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

// getQueue gets path with a session of role ("doctor" for doctorID,
// "patient" for patientID, "staff" an admin, "" none) and answers the status and the body.
func (s *site) getQueue(t *testing.T, role string, id int64, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", s.url+path, nil)
	must(t, err)
	req.AddCookie(&http.Cookie{Name: langCookie, Value: "en"})
	r := map[string]auth.Role{"doctor": auth.RoleDoctor, "patient": auth.RolePatient, "staff": auth.RoleAdmin}[role]
	if r != "" {
		sub := strconv.FormatInt(id, 10)
		if role == "staff" {
			sub = staffPrefix + "admin"
		}
		tok, _ := s.signer.MintPage(r, sub, time.Hour)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: tok})
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	must(t, err)
	return res.StatusCode, readAll(t, res)
}

// boardEvents opens a doctor's board's event stream and answers its
// events' data.
func boardEvents(t *testing.T, ctx context.Context, u string) <-chan boardView {
	return streamEvents[boardView](t, ctx, u)
}

// streamEvents opens an event stream and answers its events' data as Ts.
func streamEvents[T any](t *testing.T, ctx context.Context, u string) <-chan T {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	must(t, err)
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan T, 16)
	go func() {
		defer res.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var b T
				if json.Unmarshal([]byte(data), &b) == nil {
					out <- b
				}
			}
		}
	}()
	return out
}

func nextBoard[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case b, ok := <-c:
		if !ok {
			t.Fatal("the stream ended")
		}
		return b
	case <-time.After(5 * time.Second):
		t.Fatal("no board event in 5s")
	}
	var zero T
	return zero
}

// The console and the board: a morning with check-ins, a call, a
// recall, a skip and a completion, the board's stream following each
// (and a reconnect given the whole state), the board closed to anyone
// without its key or a staff session, another doctor's console not
// found, the patient's page saying where they stand.
func TestQueuePages(t *testing.T) {
	var clock atomic.Int64
	s := newSite(t, withClock(func() time.Time { return time.Unix(0, clock.Load()) }))
	clock.Store(s.slots[2].StartAt.Add(-10 * time.Minute).UnixNano())
	ctx := booking.WithActor(context.Background(), booking.Actor{Role: "admin", ID: "test"})
	admin := booking.Actor{Role: "admin", ID: "test"}
	var as []booking.Appointment
	for i, p := range s.patients[:2] {
		r := s.svc.Book(ctx, p.ID, s.slots[2+i].ID, fmt.Sprintf("queue-%d", i))
		must(t, r.Err)
		_, _, err := s.svc.CheckIn(ctx, admin, r.Appointment.ID, "")
		must(t, err)
		as = append(as, r.Appointment)
	}
	console := fmt.Sprintf("/queue/doctors/%d", s.doctor.ID)
	if st, _ := s.getQueue(t, "doctor", s.empty.ID, console); st != 404 {
		t.Fatalf("another doctor's console: %d, want 404", st)
	}
	if st, _ := s.getQueue(t, "patient", s.patients[0].ID, console); st != http.StatusSeeOther {
		t.Fatalf("a patient at the console: %d, want the staff sign-in", st)
	}
	st, page := s.getQueue(t, "doctor", s.doctor.ID, console)
	if st != 200 || !strings.Contains(page, `id="call-next"`) || !strings.Contains(page, fmt.Sprintf(`data-waiting="%d"`, as[1].ID)) {
		t.Fatalf("console: %d\n%s", st, mainOf(page))
	}
	boardPath := fmt.Sprintf("/display/doctors/%d", s.doctor.ID)
	if st, _ := s.getQueue(t, "", 0, boardPath); st != 404 {
		t.Fatalf("a board without its key: %d, want 404", st)
	}
	if st, _ := s.getQueue(t, "", 0, boardPath+"?key=wrong"); st != 404 {
		t.Fatalf("a board with a wrong key: %d, want 404", st)
	}
	if st, _ := s.getQueue(t, "doctor", s.empty.ID, boardPath); st != 404 {
		t.Fatalf("another doctor's board: %d, want 404", st)
	}
	key := s.pages.displayToken(s.doctor.ID)
	if !strings.Contains(page, boardPath+"?key="+key) {
		t.Fatal("the console does not link its board")
	}
	st, page = s.getQueue(t, "", 0, boardPath+"?key="+key)
	if st != 200 || !strings.Contains(page, "Please wait to be called.") || !strings.Contains(page, "A. N***") || strings.Contains(page, "Anh Nguyen") {
		t.Fatalf("board: %d\n%s", st, mainOf(page))
	}

	sctx, cancel := context.WithCancel(context.Background())
	events := boardEvents(t, sctx, s.url+boardPath+"/events?key="+key)
	if b := nextBoard(t, events); b.Called != nil || len(b.Next) != 2 || b.Next[0].Name != "A. N***" {
		t.Fatalf("first event: %+v", b)
	}
	post := func(path string) {
		t.Helper()
		if st, body := s.postAs(t, "doctor", "en", path, url.Values{}); st != http.StatusSeeOther {
			t.Fatalf("POST %s: %d\n%s", path, st, mainOf(body))
		}
	}
	post(console + "/call")
	b := nextBoard(t, events)
	if b.Called == nil || b.Called.Name != "A. N***" || b.Called.Calls != 1 || len(b.Next) != 1 {
		t.Fatalf("after the call: %+v", b)
	}
	post(fmt.Sprintf("/queue/appointments/%d/recall", as[0].ID))
	if b := nextBoard(t, events); b.Called == nil || b.Called.Calls != 2 {
		t.Fatalf("after the recall: %+v", b)
	}
	post(fmt.Sprintf("/queue/appointments/%d/skip", as[0].ID))
	if b := nextBoard(t, events); b.Called != nil || len(b.Next) != 2 || b.Next[0].Name != "L. B***" {
		t.Fatalf("after the skip (the skipped one after the other): %+v", b)
	}
	// The second patient's page says they are next.
	if st, line := s.getQueue(t, "patient", s.patients[1].ID, fmt.Sprintf("/appointments/%d/queue", as[1].ID)); st != 200 || !strings.Contains(line, "You are next") {
		t.Fatalf("the patient's line: %d %q", st, line)
	}
	if st, _ := s.getQueue(t, "patient", s.patients[0].ID, fmt.Sprintf("/appointments/%d/queue", as[1].ID)); st != 404 {
		t.Fatalf("another patient's line: %d, want 404", st)
	}
	_, page = s.getQueue(t, "patient", s.patients[1].ID, fmt.Sprintf("/appointments/%d", as[1].ID))
	if !strings.Contains(page, `data-live="/appointments/`) || !strings.Contains(page, "You are next") {
		t.Fatalf("the appointment page lacks its live line:\n%s", mainOf(page))
	}
	post(console + "/call")
	nextBoard(t, events)
	post(fmt.Sprintf("/queue/appointments/%d/start", as[1].ID))
	nextBoard(t, events)
	clock.Store(s.slots[3].StartAt.Add(10 * time.Minute).UnixNano())
	post(fmt.Sprintf("/queue/appointments/%d/complete", as[1].ID))
	cancel()

	// A reconnect is given the whole state at once.
	actx, acancel := context.WithCancel(context.Background())
	defer acancel() // before the server closes: it waits for its streams
	again := boardEvents(t, actx, s.url+boardPath+"/events?key="+key)
	if b := nextBoard(t, again); b.Called != nil || len(b.Next) != 1 || b.Next[0].Name != "A. N***" {
		t.Fatalf("on reconnect: %+v", b)
	}
	if a, err := s.svc.Appointment(context.Background(), as[1].ID, 0); err != nil || a.Status != booking.StatusCompleted {
		t.Fatalf("completed: %+v %v", a, err)
	}
	// Another doctor cannot act on this queue from the pages.
	if st, _ := s.postAs(t, "doctor", "en", fmt.Sprintf("/queue/doctors/%d/call", s.empty.ID), url.Values{}); st != 404 {
		t.Fatalf("calling another doctor's queue: %d, want 404", st)
	}
}
