package tsclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// nodeModules is where the npm packages of package.json are:
// $SLOTD_LINT_NODE_MODULES (.ci/run installs them there), else the cache
// folder .ci/run uses. It also checks that node is on PATH. Without either
// the test skips, except under CI=true where it fails.
func nodeModules(t *testing.T) string {
	t.Helper()
	dirs := []string{os.Getenv("SLOTD_LINT_NODE_MODULES")}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "slotd-ci", "npm", "node_modules"))
	}
	msg := "openapi-fetch, openapi-typescript and typescript not found: run .ci/run, or npm install them " +
		"(versions in clients/typescript/package.json) --prefix ~/.cache/slotd-ci/npm, or set SLOTD_LINT_NODE_MODULES"
	if _, err := exec.LookPath("node"); err != nil {
		msg = "node not found on PATH (Debian's nodejs package)"
	} else {
		for _, d := range dirs {
			if d == "" {
				continue
			}
			if present(d, "openapi-fetch/package.json", "openapi-typescript/package.json", "typescript/package.json", "@types/node/package.json") {
				return d
			}
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func present(dir string, files ...string) bool {
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// workDir is a temporary copy of the client's files with node_modules
// linked in: node resolves an ES module's imports from the folders above
// the file, not from NODE_PATH.
func workDir(t *testing.T, modules string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"book.mjs", "schema.d.ts", "tsconfig.json", "package.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// run runs name in dir and returns its standard output; it fails the test
// if the command fails.
func run(t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\nstdout: %s\nstderr: %s", name, args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestBookScriptBooks: book.mjs, through openapi-fetch, lists the doctors
// page by page, finds the free place and books it; the retry with the same
// Idempotency-Key answers the same appointment and books nothing more.
func TestBookScriptBooks(t *testing.T) {
	dir := workDir(t, nodeModules(t))
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	signer, err := auth.NewSigner([]byte("a test secret of at least thirty-two bytes!"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: service.NewService(db, service.Options{}), Signer: signer}))
	t.Cleanup(srv.Close)

	dept, err := db.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	if err != nil {
		t.Fatal(err)
	}
	var doctors []int64
	for i := range 3 {
		d, err := db.CreateDoctor(ctx, booking.Doctor{Name: fmt.Sprintf("Dr. %d", i), DepartmentID: dept.ID, TimeZone: "UTC"})
		if err != nil {
			t.Fatal(err)
		}
		doctors = append(doctors, d.ID)
	}
	// Only the last doctor, on the second page of two, has a place that day.
	start := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Hour)
	slot, err := db.CreateSlot(ctx, booking.Slot{DoctorID: doctors[2], StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: 2, OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	if err != nil {
		t.Fatal(err)
	}
	patient, err := db.CreatePatient(ctx, booking.Patient{Name: "Anna", Phone: "+33612345678"})
	if err != nil {
		t.Fatal(err)
	}
	token, err := signer.Mint(auth.RolePatient, fmt.Sprint(patient.ID), time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	out := run(t, dir, "node", "book.mjs", srv.URL, token, start.Format(time.DateOnly), "ts-client-test-1", "2")
	type answer struct {
		Status      int
		Appointment struct {
			ID        int64 `json:"id"`
			SlotID    int64 `json:"slotId"`
			PatientID int64 `json:"patientId"`
			Status    string
		}
	}
	var got struct {
		Doctors []int64
		Slot    struct{ ID int64 }
		First   answer
		Retry   answer
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("book.mjs printed %q: %v", out, err)
	}
	if fmt.Sprint(got.Doctors) != fmt.Sprint(doctors) {
		t.Fatalf("paged doctors %v, want %v", got.Doctors, doctors)
	}
	first, retry := got.First, got.Retry
	if got.Slot.ID != slot.ID || first.Status != 201 || first.Appointment.SlotID != slot.ID ||
		first.Appointment.PatientID != patient.ID || first.Appointment.Status != "BOOKED" {
		t.Fatalf("book.mjs booked %+v in slot %d, want 201 BOOKED in slot %d for patient %d", first, got.Slot.ID, slot.ID, patient.ID)
	}
	if retry.Status != 200 || retry.Appointment != first.Appointment {
		t.Fatalf("retry with the same key answered %+v, want 200 with %+v", retry, first.Appointment)
	}
	a, err := db.GetAppointment(ctx, first.Appointment.ID)
	if err != nil || a.SlotID != slot.ID || a.PatientID != patient.ID || a.Status != booking.StatusBooked {
		t.Fatalf("stored appointment %+v, %v", a, err)
	}
	if s, err := db.GetSlot(ctx, slot.ID); err != nil || s.BookedCount != 1 {
		t.Fatalf("slot after the booking and its retry: %d booked, %v; want 1", s.BookedCount, err)
	}
}

// TestBookScriptTypeChecks: book.mjs uses the API as schema.d.ts says it is
// (paths, parameters, bodies and answers), checked by tsc.
func TestBookScriptTypeChecks(t *testing.T) {
	modules := nodeModules(t)
	dir := workDir(t, modules)
	run(t, dir, "node", filepath.Join(modules, "typescript", "bin", "tsc"), "-p", ".")
}

// TestSchemaUpToDate: the committed schema.d.ts is what openapi-typescript
// makes from httpapi/openapi.json now (npm run generate to refresh it).
func TestSchemaUpToDate(t *testing.T) {
	modules := nodeModules(t)
	spec, err := filepath.Abs(filepath.Join("..", "..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "schema.d.ts")
	run(t, ".", "node", filepath.Join(modules, "openapi-typescript", "bin", "cli.js"), spec, "-o", fresh)
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("schema.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("clients/typescript/schema.d.ts is not what openapi-typescript makes from httpapi/openapi.json: run npm run generate in clients/typescript and commit it")
	}
}
