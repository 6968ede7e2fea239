// Package icaltest is the conformance suite of ical.Tokens: both stores run
// it (sqlite/calendar_test.go, postgres/calendar_test.go).
package icaltest

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/ical"
	"github.com/slotd/slotd/internal/testkit"
)

// Store is what the suite needs: the tokens and the booking store they sit
// beside (to create patients).
type Store interface {
	ical.Tokens
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

// must fails the test at once on an error.
var must = testkit.NoError
