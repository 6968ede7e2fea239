package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
)

// TestRekeyStaffTOTP: a rekey re-seals the staff's second-factor secrets
// with the newest key too, so the older key can be retired.
func TestRekeyStaffTOTP(t *testing.T) {
	ctx := context.Background()
	loc := pgtest.DSN(t)
	text := pii.Generate()
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	s, err := openMigrated(t, loc, text)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetStaffPassword(ctx, "alice", []byte("$2a$10$hash"), now); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStaffTOTP(ctx, "alice", "JBSWY3DPEHPK3PXP", now); err != nil {
		t.Fatal(err)
	}
	s.Close()
	text2 := pii.AddKey(text, 1)
	if s, err = openMigrated(t, loc, text2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rekey(ctx, 10); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = openMigrated(t, loc, without(text2, 1)); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.StaffAccount(ctx, "alice")
	if err != nil || a.TOTPSecret != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("after retiring key 1: %+v, %v", a, err)
	}
}
