package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/internal/testkit"
)

// syncBuffer is a bytes.Buffer safe for a command writing while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestEnvironmentFillsFlags(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SLOTD_DB", "sqlite:"+filepath.Join(dir, "env.db"))
	t.Setenv("SLOTD_ROLE", "admin")
	t.Setenv("SLOTD_SUB", "ops")
	var out, errb syncBuffer
	// The command line wins over the environment: --sub given, --role from env.
	if err := run(context.Background(), []string{"token", "--sub", "alice"}, &out, &errb); err != nil {
		t.Fatalf("token: %v (%s)", err, errb.String())
	}
	secret, err := auth.LoadOrCreateSecret(filepath.Join(dir, "auth-secret"))
	if err != nil {
		t.Fatalf("the secret was not kept beside the database named by SLOTD_DB: %v", err)
	}
	signer, err := auth.NewSigner(secret)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := signer.Verify(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	if claims.Role != auth.RoleAdmin || claims.Subject != "alice" {
		t.Fatalf("claims = %+v, want admin/alice", claims)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "auth-secret")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret mode %v, want 0600", fi.Mode().Perm())
	}
	t.Setenv("SLOTD_TTL", "soon")
	if err := run(context.Background(), []string{"token"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "SLOTD_TTL") {
		t.Fatalf("a bad variable must be named in the error, got %v", err)
	}
}

func TestTokenRefusesBadArguments(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "t.db")
	for _, args := range [][]string{
		{"token", "--db", db, "--role", "patient", "--sub", "abc"},
		{"token", "--db", db, "--role", "patient", "--sub", "0"},
		{"token", "--db", db, "--role", "root", "--sub", "1"},
		{"token", "--db", db, "--role", "admin"},
		{"token", "--db", db, "--role", "admin", "--sub", "x", "--ttl", "-1h"},
		{"token", "--db", db, "--role", "admin", "--sub", "x", "--ttl", "721h"},
		{"token", "--db", "postgres://nowhere/db", "--role", "admin", "--sub", "x"},
		{"token", "--db", db, "--role", "admin", "--sub", "x", "extra"},
	} {
		var out, errb syncBuffer
		if err := run(context.Background(), args, &out, &errb); err == nil {
			t.Errorf("%v: accepted, printed %q", args, out.String())
		}
	}
	var out, errb syncBuffer
	if err := run(context.Background(), []string{"nope"}, &out, &errb); err == nil {
		t.Error("an unknown command was accepted")
	}
}

func TestMigrateTwice(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "sub", "m.db")
	for range 2 {
		var out, errb syncBuffer
		if err := run(context.Background(), []string{"migrate", "--db", db}, &out, &errb); err != nil {
			t.Fatalf("migrate: %v (%s)", err, errb.String())
		}
	}
}

// TestServeDemo starts the service as `slotd serve --demo` would, uses it,
// and stops it the way SIGTERM does (the context), expecting a clean exit.
func TestServeDemo(t *testing.T) {
	dir := t.TempDir()
	ctx, stop := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--drain=0", "--addr", "127.0.0.1:0", "--db", "sqlite:" + filepath.Join(dir, "demo.db")}, &out, &errb)
	}()
	urlRe := regexp.MustCompile(`running at (http://[0-9.:]+)`)
	var base string
	if !testkit.Poll(60*time.Second, func() bool {
		if m := urlRe.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
			return true
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, errb.String())
		default:
		}
		return false
	}) {
		t.Fatalf("no URL printed:\n%s\n%s", out.String(), errb.String())
	}
	testkit.Eventually(t, "slotd listening", 60*time.Second, func() bool { return strings.Contains(errb.String(), "slotd listening") })
	if !strings.Contains(out.String(), "export ADMIN_TOKEN=") || !strings.Contains(out.String(), "export PATIENT_TOKEN=") {
		t.Fatalf("demo tokens not printed:\n%s", out.String())
	}
	// The demo's simulated payment works, so no warning may say otherwise.
	if log := errb.String(); strings.Contains(log, "cannot be paid") || !strings.Contains(log, "simulated payment page") {
		t.Fatalf("the demo's start says its held appointments cannot be paid, or not where they are paid:\n%s", log)
	}
	resp, err := http.Get(base + "/api/doctors")
	if err != nil {
		t.Fatal(err)
	}
	var page struct{ Items []map[string]any }
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	doctors := page.Items
	if err != nil || resp.StatusCode != 200 || len(doctors) == 0 {
		t.Fatalf("GET /api/doctors: %d %v %d doctors", resp.StatusCode, err, len(doctors))
	}
	// Ready once the database answers within the probe's second: on
	// SQLite the one writer may still be busy with the demo's start-up
	// writes (slot generation, the bulk export's first build).
	testkit.Eventually(t, "GET /readyz answering 200", 60*time.Second, func() bool {
		r, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})
	for _, p := range []string{"/healthz", "/metrics", "/fhir/metadata", "/fhir/$bulk-publish"} {
		r, err := http.Get(base + p)
		if err != nil || r.StatusCode != 200 {
			t.Fatalf("GET %s: %v %v", p, err, r)
		}
		r.Body.Close()
	}
	// The FHIR and iCalendar routes are counted like the API's.
	r, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := io.ReadAll(r.Body); !strings.Contains(string(body), `route="GET /fhir/metadata"`) {
		t.Fatal("/metrics does not count the FHIR routes")
	}
	r.Body.Close()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve did not stop cleanly: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop within 30s of the signal")
	}
	if strings.Contains(errb.String(), "+336") || strings.Contains(errb.String(), "@example.org") {
		t.Fatal("the log contains personal data")
	}
}
