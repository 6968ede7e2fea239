package web

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
)

// TestRoundPagesShowTheLottery: a lottery round's page shows the
// commitment and the registration button before the draw, and the seed with
// the patient's position after it; the staff page lists the registrations.
// In every language.
func TestRoundPagesShowTheLottery(t *testing.T) {
	s := &pagesSite{site: newSite(t)}
	ctx := context.Background()
	now := time.Now().UTC()
	seed := slices.Repeat([]byte{4}, booking.SeedSize)
	r, err := s.svc.CreateRound(ctx, booking.Round{Name: "Autumn rooms", OpensAt: now.Add(2 * time.Hour), ClosesAt: now.Add(48 * time.Hour),
		TermStart: now.Add(72 * time.Hour), TermEnd: now.Add(900 * time.Hour), Quota: 1,
		Lottery: &booking.Lottery{RegistrationOpensAt: now.Add(-time.Hour), RegistrationClosesAt: now.Add(time.Hour),
			SelectionMinutes: 30, SelectionGroup: 1, Seed: seed}})
	must(t, err)
	_, err = s.svc.SetRoundState(ctx, r.ID, booking.RoundOpen)
	must(t, err)
	path := "/rounds/" + itoa(r.ID)
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "patient", lang.Tag, path))
		if !strings.Contains(page, booking.Commit(seed)) || !strings.Contains(page, `action="/rounds/`+itoa(r.ID)+`/register"`) ||
			strings.Contains(page, "data-seed") {
			t.Fatalf("%s, before the draw:\n%s", lang.Tag, page)
		}
	}
	g, _, err := s.svc.Register(ctx, r.ID, s.patients[0].ID)
	must(t, err)
	// The draw waits for the close: here the store draws as if it came.
	_, _, err = s.store.DrawLottery(ctx, r.ID, now.Add(time.Hour))
	must(t, err)
	for _, lang := range i18n.Languages {
		page := mainOf(s.getAs(t, "patient", lang.Tag, path))
		if !strings.Contains(page, `data-seed>04040404`) || !strings.Contains(page, `data-position="1"`) ||
			!strings.Contains(page, `data-registration="`+itoa(g.ID)+`"`) || strings.Contains(page, "/register\"") {
			t.Fatalf("%s, after the draw:\n%s", lang.Tag, page)
		}
		staff := mainOf(s.getAs(t, "staff", lang.Tag, "/staff"+path))
		if !strings.Contains(staff, `data-registration="`+itoa(g.ID)+`"`) || !strings.Contains(staff, "data-seed") {
			t.Fatalf("%s, staff page:\n%s", lang.Tag, staff)
		}
	}
	// Signed out, the page still shows the lottery.
	if page := mainOf(s.getAs(t, "", "en", path)); !strings.Contains(page, "data-commitment") {
		t.Fatalf("signed out:\n%s", page)
	}
}
