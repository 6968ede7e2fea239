package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/sqlite"
)

// serveDemoOnce runs `slotd serve --demo` on db until it serves, then
// stops it; it returns what it printed.
func serveDemoOnce(t *testing.T, db string) (stdout, stderr string) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var out, errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--drain=0", "--addr", "127.0.0.1:0", "--db", "sqlite:" + db}, &out, &errb)
	}()
	waitURL(t, &out, &errb, done)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("serve --demo did not stop cleanly: %v\n%s", err, errb.String())
	}
	return out.String(), errb.String()
}

// TestServeDemoOnlyOnDemoDatabase: --demo fills an empty database and
// marks it, starts again on it without filling it again, and refuses a
// database holding real data: an error, no token printed, no demo staff
// user created, the data untouched.
func TestServeDemoOnlyOnDemoDatabase(t *testing.T) {
	dir := t.TempDir()
	demoDB := filepath.Join(dir, "demo.db")
	out, _ := serveDemoOnce(t, demoDB)
	if !strings.Contains(out, "demo data:") || !strings.Contains(out, "export ADMIN_TOKEN=") || !strings.Contains(out, "password demo") {
		t.Fatalf("empty database: no demo data, tokens or staff user:\n%s", out)
	}
	out, _ = serveDemoOnce(t, demoDB)
	if strings.Contains(out, "demo data:") || !strings.Contains(out, "export ADMIN_TOKEN=") {
		t.Fatalf("restart on the demo's database: filled again or no tokens:\n%s", out)
	}

	// A clinic's database: migrated, with a department and a patient.
	ctx := context.Background()
	realDB := filepath.Join(dir, "clinic.db")
	st, err := sqlite.Open(ctx, realDB)
	mustNil(t, err)
	mustNil(t, st.Migrate(ctx))
	_, err = st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	mustNil(t, err)
	_, err = st.CreatePatient(ctx, booking.Patient{Name: "Real Patient", Phone: "+33611111111"})
	mustNil(t, err)
	mustNil(t, st.Close())

	for _, env := range []bool{false, true} {
		var outb, errb syncBuffer
		args := []string{"serve", "--demo", "--drain=0", "--addr", "127.0.0.1:0", "--db", "sqlite:" + realDB}
		if env { // SLOTD_DEMO=true is the flag
			t.Setenv("SLOTD_DEMO", "true")
			args = []string{"serve", "--drain=0", "--addr", "127.0.0.1:0", "--db", "sqlite:" + realDB}
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		err := run(ctx, args, &outb, &errb)
		cancel()
		if err == nil || !strings.Contains(err.Error(), errDemoRefused) {
			t.Fatalf("env %v: serve --demo on real data: %v, want %q", env, err, errDemoRefused)
		}
		for name, text := range map[string]string{"stdout": outb.String(), "stderr": errb.String(), "error": err.Error()} {
			if strings.Contains(text, "eyJ") || strings.Contains(text, "token:") || strings.Contains(text, "password demo") {
				t.Fatalf("env %v: refused, yet %s shows a token or the demo password:\n%s", env, name, text)
			}
		}
	}
	st, err = sqlite.Open(ctx, realDB)
	mustNil(t, err)
	defer st.Close()
	if _, err := st.StaffPasswordHash(ctx, "admin"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the demo staff user exists on the refused database: %v", err)
	}
	if depts, err := st.ListAllDepartments(ctx, booking.Page{}); err != nil || len(depts) != 1 {
		t.Fatalf("departments after the refusal: %v %v, want the clinic's one", depts, err)
	}
}

// TestDemoDataMarksAnEmptyDatabase: `demo-data` on an empty database marks
// it as the demo's (serve --demo may use it); on a clinic's it adds its
// sample without marking it.
func TestDemoDataMarksAnEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fill := func(db string) {
		t.Helper()
		var out, errb syncBuffer
		if err := run(ctx, []string{"demo-data", "--db", "sqlite:" + db, "--doctors", "1", "--days", "1", "--patients", "1"}, &out, &errb); err != nil {
			t.Fatalf("demo-data: %v\n%s", err, errb.String())
		}
	}
	claim := func(db string) (bool, error) {
		t.Helper()
		st, err := sqlite.Open(ctx, db)
		mustNil(t, err)
		defer st.Close()
		mustNil(t, st.Migrate(ctx))
		return st.ClaimDemo(ctx)
	}
	empty := filepath.Join(dir, "empty.db")
	fill(empty)
	if fill, err := claim(empty); err != nil || fill {
		t.Fatalf("demo-data's own database: fill %v, %v; want marked (false, nil)", fill, err)
	}

	clinic := filepath.Join(dir, "clinic.db")
	st, err := sqlite.Open(ctx, clinic)
	mustNil(t, err)
	mustNil(t, st.Migrate(ctx))
	_, err = st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	mustNil(t, err)
	mustNil(t, st.Close())
	fill(clinic)
	if _, err := claim(clinic); booking.ErrorCode(err) != booking.CodeConflict {
		t.Fatalf("a clinic's database after demo-data: %v, want still refused", err)
	}
}
