package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// TestReconcile: a clean database exits 0; a corrupted counter is reported
// with exit status 1; --repair fixes and reports it; then it is clean again.
func TestReconcile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "r.db")
	db := "sqlite:" + path
	reconcile := func(args ...string) (string, error) {
		t.Helper()
		var out, errb bytes.Buffer
		err := run(ctx, append([]string{"reconcile", "--db", db}, args...), &out, &errb)
		return out.String(), err
	}
	if out, err := reconcile(); err != nil || !strings.Contains(out, "clean: every invariant holds") {
		t.Fatalf("empty database: %v\n%s", err, out)
	}

	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	mustNil(t, err)
	doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Roux", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	mustNil(t, err)
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	sl, err := s.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 3, OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	mustNil(t, err)
	_, err = s.DB().ExecContext(ctx, `UPDATE slots SET booked_count = 2 WHERE id = ?`, sl.ID)
	mustNil(t, err)
	mustNil(t, s.Close())

	out, err := reconcile()
	var st *exitStatus
	if !errors.As(err, &st) || st.code != 1 {
		t.Fatalf("broken counter: want exit status 1, got %v\n%s", err, out)
	}
	if !strings.Contains(out, "counter mismatches: 1") || !strings.Contains(out, "booked_count 2, active appointments 0") {
		t.Fatalf("report does not show the mismatch:\n%s", out)
	}
	out, err = reconcile("--repair")
	if err != nil || !strings.Contains(out, "booked_count 2 -> 0") {
		t.Fatalf("repair: %v\n%s", err, out)
	}
	if out, err := reconcile(); err != nil || !strings.Contains(out, "clean") {
		t.Fatalf("after repair: %v\n%s", err, out)
	}

	// A payment that needs a refund is pending work, not a breach: exit 3
	// until staff record the refund, then clean again.
	s, err = sqlite.Open(ctx, path)
	mustNil(t, err)
	p, err := s.CreatePatient(ctx, booking.Patient{Name: "P"})
	mustNil(t, err)
	_, err = s.DB().ExecContext(ctx, `INSERT INTO appointments (slot_id, patient_id, status, queue_no, start_at, end_at,
		idempotency_key, fingerprint, created_at, updated_at) VALUES (?, ?, 'CANCELLED', 1, 0, 0, 'k', 'f', 0, 0)`, sl.ID, p.ID)
	mustNil(t, err)
	_, err = s.DB().ExecContext(ctx, `INSERT INTO payments (trade_no, appointment_id, amount_cents, outcome, reason, received_at)
		SELECT 'T9', max(id), 500, 'needs-refund', 'cancelled', 0 FROM appointments`)
	mustNil(t, err)
	mustNil(t, s.Close())
	out, err = reconcile()
	if !errors.As(err, &st) || st.code != ExitPending || !strings.Contains(out, "violations: 0, pending actions: 1") {
		t.Fatalf("pending refund: want exit status %d, got %v\n%s", ExitPending, err, out)
	}
	s, err = sqlite.Open(ctx, path)
	mustNil(t, err)
	_, err = service.NewService(s, service.Options{}).MarkRefunded(ctx, "T9", "RF-1")
	mustNil(t, err)
	mustNil(t, s.Close())
	if out, err := reconcile(); err != nil || !strings.Contains(out, "clean: every invariant holds and nothing is pending") {
		t.Fatalf("after the refund: %v\n%s", err, out)
	}

	// A paid appointment cancelled without its refund record lost money
	// owed: a breach, exit 1.
	s, err = sqlite.Open(ctx, path)
	mustNil(t, err)
	_, err = s.DB().ExecContext(ctx, `INSERT INTO payments (trade_no, appointment_id, amount_cents, outcome, received_at)
		SELECT 'T10', max(id), 500, 'applied', 0 FROM appointments`)
	mustNil(t, err)
	mustNil(t, s.Close())
	out, err = reconcile()
	if !errors.As(err, &st) || st.code != 1 || !strings.Contains(out, "paid appointments cancelled without a refund: 1") {
		t.Fatalf("lost refund: want exit status 1, got %v\n%s", err, out)
	}
}

// mustNil fails the test at once on an error.
var mustNil = testkit.NoError
