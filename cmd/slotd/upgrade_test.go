package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/internal/pgtest"
)

// previousRelease is the release whose databases testdata/upgrade holds,
// written by that release's own binary (scripts/upgrade-fixture): patients 1
// and 2 each booked a place with doctors 1 and 2 for the day after, and
// patient 2 cancelled the second.
const previousRelease = "0.1.0"

// TestUpgradeFromPreviousRelease: a database written by the previous
// release, SQLite and PostgreSQL, is migrated by this one and then holds
// every invariant, serves its patients' appointments and sealed data with
// the keys it was written with, and takes new bookings.
func TestUpgradeFromPreviousRelease(t *testing.T) {
	dir := filepath.Join("testdata", "upgrade", previousRelease)
	secret := strings.TrimSpace(readFile(t, filepath.Join(dir, "auth-secret")))
	keys := strings.TrimSpace(readFile(t, filepath.Join(dir, "data-keys")))
	t.Run("sqlite", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "slotd.db")
		if err := os.WriteFile(db, []byte(readFile(t, filepath.Join(dir, "slotd.db"))), 0o600); err != nil {
			t.Fatal(err)
		}
		checkUpgrade(t, "sqlite:"+db, secret, keys)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		conn, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		// A plain pg_dump: many statements, no arguments, so the simple protocol.
		_, err = conn.Exec(t.Context(), readFile(t, filepath.Join(dir, "postgres.sql")), pgx.QueryExecModeSimpleProtocol)
		conn.Close(context.Background())
		if err != nil {
			t.Fatalf("load the %s dump: %v", previousRelease, err)
		}
		checkUpgrade(t, dsn, secret, keys)
	})
}

func checkUpgrade(t *testing.T, db, secret, keys string) {
	ctx := context.Background()
	cmd := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if err := run(ctx, append(args, "--db", db, "--data-keys", keys), &out, &errb); err != nil {
			t.Fatalf("slotd %s: %v\n%s%s", args[0], err, out.String(), errb.String())
		}
		return out.String()
	}
	cmd("migrate")
	if out := cmd("migrate", "--dry-run"); !strings.Contains(out, "0 pending migrations") {
		t.Fatalf("after migrate, still pending:\n%s", out)
	}
	cmd("reconcile") // exits 0 only when every invariant holds and nothing is pending
	patient1 := strings.TrimSpace(cmd("token", "--auth-secret", secret, "--role", "patient", "--sub", "1"))
	admin := strings.TrimSpace(cmd("token", "--auth-secret", secret, "--role", "admin", "--sub", "upgrade-test"))

	in := startInstance(t, nil, "--db", db, "--data-keys", keys, "--auth-secret", secret)
	defer in.stop(t)
	base := in.url
	call := func(method, path, tok string, body any, want int, v any) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "upgrade-"+path)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, b)
		}
		if v != nil {
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatalf("%s %s: %v: %s", method, path, err, b)
			}
		}
	}

	// Patient 1's two appointments, booked by the previous release.
	var mine struct {
		Items []struct {
			ID       int64
			DoctorID int64
			Status   string
		}
	}
	call("GET", "/api/me/appointments", patient1, nil, 200, &mine)
	var doctors []int64
	for _, a := range mine.Items {
		if a.Status != "BOOKED" {
			t.Fatalf("patient 1's appointment %+v after the upgrade", a)
		}
		doctors = append(doctors, a.DoctorID)
	}
	if slices.Sort(doctors); !slices.Equal(doctors, []int64{1, 2}) {
		t.Fatalf("patient 1's appointments after the upgrade: %+v", mine.Items)
	}
	// Sealed personal data opens with the keys it was sealed with.
	var p struct{ Name string }
	call("GET", "/api/admin/patients/1", admin, nil, 200, &p)
	if p.Name == "" {
		t.Fatal("patient 1 has no name after the upgrade")
	}
	// And it takes new bookings: a new slot, booked.
	start := time.Now().Add(40 * 24 * time.Hour).UTC().Truncate(time.Hour)
	var slot struct{ ID int64 }
	call("POST", "/api/admin/slots", admin, map[string]any{"doctorId": 1, "startAt": start, "durationMinutes": 15, "capacity": 1}, 201, &slot)
	call("POST", "/api/appointments", patient1, map[string]any{"slotId": slot.ID}, 201, nil)
	call("GET", fmt.Sprintf("/api/slots/%d", slot.ID), "", nil, 200, nil)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
