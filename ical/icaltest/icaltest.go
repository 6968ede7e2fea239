// Package icaltest is the conformance suite of ical.Tokens: both stores run
// it (sqlite/calendar_test.go, postgres/calendar_test.go).
package icaltest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/ical"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
)

// Store is what the suite needs: the tokens and the booking store they sit
// beside (to create patients).
type Store interface {
	ical.Tokens
	ical.DoctorDays
	booking.Store
}

// Run runs every test on a fresh store made by newStore.
func Run(t *testing.T, newStore func(t testing.TB) Store) {
	s := newStore(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	p1, err := s.CreatePatient(ctx, booking.Patient{Name: "One"})
	must(t, err)
	p2, err := s.CreatePatient(ctx, booking.Patient{Name: "Two"})
	must(t, err)

	if _, err := s.CalendarTokenCreated(ctx, p1.ID); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("no token yet: %v, want not-found", err)
	}
	must(t, s.SetCalendarToken(ctx, p1.ID, ical.HashToken("a"), now))
	must(t, s.SetCalendarToken(ctx, p2.ID, ical.HashToken("b"), now))
	if id, err := s.CalendarTokenPatient(ctx, ical.HashToken("a")); err != nil || id != p1.ID {
		t.Fatalf("token a: %d, %v; want patient %d", id, err, p1.ID)
	}
	at, err := s.CalendarTokenCreated(ctx, p1.ID)
	if err != nil || !at.Equal(now) {
		t.Fatalf("created %v, %v; want %v", at, err, now)
	}

	// A new token replaces the old one, which stops working at once.
	later := now.Add(time.Hour)
	must(t, s.SetCalendarToken(ctx, p1.ID, ical.HashToken("c"), later))
	if _, err := s.CalendarTokenPatient(ctx, ical.HashToken("a")); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("replaced token: %v, want not-found", err)
	}
	if id, err := s.CalendarTokenPatient(ctx, ical.HashToken("c")); err != nil || id != p1.ID {
		t.Fatalf("new token: %d, %v", id, err)
	}
	if at, _ := s.CalendarTokenCreated(ctx, p1.ID); !at.Equal(later) {
		t.Fatalf("created %v after replacing, want %v", at, later)
	}

	// Revoking ends only that patient's token, and twice is fine.
	must(t, s.RevokeCalendarToken(ctx, p1.ID))
	must(t, s.RevokeCalendarToken(ctx, p1.ID))
	if _, err := s.CalendarTokenPatient(ctx, ical.HashToken("c")); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("revoked token: %v, want not-found", err)
	}
	if id, err := s.CalendarTokenPatient(ctx, ical.HashToken("b")); err != nil || id != p2.ID {
		t.Fatalf("other patient's token after revoke: %d, %v", id, err)
	}

	if err := s.SetCalendarToken(ctx, p2.ID+1000, ical.HashToken("d"), now); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("unknown patient: %v, want not-found", err)
	}
}

// RunRoundFeed proves that a patient's feed holding a round allocation (a
// room's term, which no doctor holds) lists it, named by the round and
// located at the room, beside the patient's ordinary appointments; it used
// to answer 404 for the whole feed.
func RunRoundFeed(t *testing.T, newStore func(t testing.TB) Store) {
	s := newStore(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }})
	signer, err := auth.NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	must(t, err)
	h := ical.New(ical.Config{Service: svc, Tokens: s, Days: s, Signer: signer, Domain: "clinic.test"})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	p, err := s.CreatePatient(ctx, booking.Patient{Name: "Student"})
	must(t, err)
	// An ordinary appointment with a doctor.
	dept, err := s.CreateDepartment(ctx, booking.Department{Name: "General practice"})
	must(t, err)
	doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Feed", DepartmentID: dept.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	start := now.Add(48 * time.Hour)
	sl, err := s.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute), Capacity: 1, Status: booking.SlotOpen})
	must(t, err)
	res, err := s.Book(ctx, sl.ID, []booking.BookRequest{{PatientID: p.ID, IdempotencyKey: "k", Fingerprint: "f"}}, now)
	must(t, err)
	must(t, res[0].Err)
	// A room allocated in a round.
	room, err := s.CreateRoom(ctx, booking.Room{Name: "A-101", TimeZone: "Asia/Shanghai", Building: "North", Floor: 1, Beds: 2})
	must(t, err)
	rd, err := s.CreateRound(ctx, booking.Round{Name: "Spring term", OpensAt: now.Add(-time.Hour), ClosesAt: now.Add(24 * time.Hour),
		TermStart: now.Add(30 * 24 * time.Hour), TermEnd: now.Add(150 * 24 * time.Hour), Quota: 1})
	must(t, err)
	slots, err := s.AddRoundSlots(ctx, rd.ID, []int64{room.ID})
	must(t, err)
	_, err = s.SetRoundState(ctx, rd.ID, booking.RoundOpen, now)
	must(t, err)
	_, _, err = s.SubmitApplication(ctx, booking.Application{RoundID: rd.ID, PatientID: p.ID, SlotID: slots[0].ID,
		IdempotencyKey: "r", Fingerprint: booking.ApplicationFingerprint(rd.ID, slots[0].ID)}, now)
	must(t, err)
	decided, err := s.DecidePending(ctx, rd.ID, 10, now)
	must(t, err)
	if len(decided) != 1 || decided[0].Status != booking.ApplicationAllocated {
		t.Fatalf("round decision: %+v", decided)
	}

	url, err := h.Subscribe(ctx, p.ID, srv.URL)
	must(t, err)
	resp, err := http.Get(url)
	must(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	must(t, err)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("feed with a round allocation: %d %s", resp.StatusCode, body)
	}
	cal := strings.ReplaceAll(string(body), "\r\n ", "") // unfold
	for _, want := range []string{"SUMMARY:Appointment with Dr. Feed (No. 1)", "SUMMARY:Room allocation: Spring term\\, room A-101",
		"LOCATION:A-101\\, building North\\, floor 1", "TZID=Asia/Shanghai"} {
		if !strings.Contains(cal, want) {
			t.Errorf("feed lacks %q:\n%s", want, cal)
		}
	}
	if n := strings.Count(cal, "BEGIN:VEVENT"); n != 2 {
		t.Errorf("%d events, want 2:\n%s", n, cal)
	}
}

// must fails the test at once on an error.
var must = testkit.NoError
