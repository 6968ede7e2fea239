package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// cli runs one slotd command in this process.
func cli(ctx context.Context, args ...string) (string, error) {
	var out, errb bytes.Buffer
	err := run(ctx, args, &out, &errb)
	return out.String() + errb.String(), err
}

// TestBackupWhileBooking: bookings race a `slotd backup` of the database
// they write (many goroutines, the backup a connection of its own as
// another process's would be); the backup restores with `slotd restore`
// beside the data-keys file kept apart, and every booking confirmed before
// the backup started is in the restored database, reconciliation clean.
func TestBackupWhileBooking(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "live", "slotd.db")
	s, err := sqlite.Open(ctx, path)
	mustNil(t, err)
	mustNil(t, s.Migrate(ctx))
	defer s.Close()
	d, err := s.CreateDepartment(ctx, booking.Department{Name: "General"})
	mustNil(t, err)
	doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Nguyen", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	mustNil(t, err)
	const slots, workers, perWorker = 8, 16, 20
	var slotIDs []int64
	start := time.Now().Add(72 * time.Hour).Truncate(time.Hour)
	for i := range slots {
		sl, err := s.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: start.Add(time.Duration(i) * time.Hour),
			EndAt: start.Add(time.Duration(i)*time.Hour + 30*time.Minute), Capacity: workers * perWorker,
			OpensAt: time.Now().Add(-time.Hour), Status: booking.SlotOpen})
		mustNil(t, err)
		slotIDs = append(slotIDs, sl.ID)
	}
	patients := make([]int64, workers*perWorker)
	for i := range patients {
		p, err := s.CreatePatient(ctx, booking.Patient{Name: fmt.Sprintf("Patient %d", i), Phone: fmt.Sprintf("+3361234%04d", i)})
		mustNil(t, err)
		patients[i] = p.ID
	}
	svc := service.NewService(s, service.Options{Timeout: time.Minute})

	var backupStarted atomic.Bool
	var mu sync.Mutex
	var before []int64 // appointments confirmed before the backup started
	confirmed := make(chan struct{}, workers*perWorker)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				p := patients[w*perWorker+i]
				r := svc.Book(ctx, p, slotIDs[(w+i)%slots], fmt.Sprintf("k-%d", p))
				if r.Err != nil {
					t.Errorf("booking for patient %d: %v", p, r.Err)
					continue
				}
				if !backupStarted.Load() {
					mu.Lock()
					before = append(before, r.Appointment.ID)
					mu.Unlock()
				}
				confirmed <- struct{}{}
			}
		}()
	}
	// The backup starts once a quarter of the bookings are confirmed,
	// while the rest are still being made.
	for range workers * perWorker / 4 {
		<-confirmed
	}
	backup := filepath.Join(dir, "backups", "slotd-1.db")
	mustNil(t, os.MkdirAll(filepath.Dir(backup), 0o700))
	backupStarted.Store(true)
	if out, err := cli(ctx, "backup", "--db", "sqlite:"+path, "--to", backup); err != nil {
		t.Fatalf("backup while booking: %v\n%s", err, out)
	}
	wg.Wait()
	mu.Lock()
	confirmedBefore := append([]int64(nil), before...)
	mu.Unlock()
	if len(confirmedBefore) < workers*perWorker/4 {
		t.Fatalf("only %d bookings counted before the backup", len(confirmedBefore))
	}
	if out, err := cli(ctx, "backup", "--db", "sqlite:"+path, "--to", backup); err == nil {
		t.Fatalf("backup over an existing file was accepted:\n%s", out)
	}

	// The restore goes to a new machine's directory: without the data
	// keys (never in the backup) it refuses; with a wrong key file it
	// refuses and leaves nothing in place; with the kept file it restores.
	target := filepath.Join(dir, "restored", "slotd.db")
	mustNil(t, os.MkdirAll(filepath.Dir(target), 0o700))
	restore := func() (string, error) { return cli(ctx, "restore", "--db", "sqlite:"+target, "--from", backup) }
	if out, err := restore(); err == nil || !strings.Contains(err.Error(), "no data keys") {
		t.Fatalf("restore without the data keys: %v\n%s", err, out)
	}
	other := filepath.Join(dir, "other", "slotd.db")
	if _, err := sqlite.Open(ctx, other); err != nil { // makes a key file of other keys
		t.Fatal(err)
	}
	keyFile, err := os.ReadFile(sqlite.KeyFileOf(other))
	mustNil(t, err)
	mustNil(t, os.WriteFile(sqlite.KeyFileOf(target), keyFile, 0o600))
	if out, err := restore(); err == nil {
		t.Fatalf("restore with the wrong data keys was accepted:\n%s", out)
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused restore left a database in place: %v", err)
	}
	keyFile, err = os.ReadFile(sqlite.KeyFileOf(path))
	mustNil(t, err)
	mustNil(t, os.WriteFile(sqlite.KeyFileOf(target), keyFile, 0o600))
	out, err := restore()
	if err != nil || !strings.Contains(out, "clean: every invariant holds") || !strings.Contains(out, fmt.Sprintf("all %d patients", len(patients))) {
		t.Fatalf("restore: %v\n%s", err, out)
	}

	r, err := sqlite.Open(ctx, target)
	mustNil(t, err)
	defer r.Close()
	have := map[int64]string{}
	rows, err := r.DB().QueryContext(ctx, `SELECT id, status FROM appointments`)
	mustNil(t, err)
	for rows.Next() {
		var id int64
		var st string
		mustNil(t, rows.Scan(&id, &st))
		have[id] = st
	}
	mustNil(t, rows.Err())
	rows.Close()
	missing := 0
	for _, id := range confirmedBefore {
		if have[id] != string(booking.StatusBooked) {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of the %d bookings confirmed before the backup started are not BOOKED in the restored database", missing, len(confirmedBefore))
	}
	t.Logf("%d bookings confirmed before the backup, %d in it, %d in all", len(confirmedBefore), len(have), workers*perWorker)
}

// TestBackupOnPostgresPointsToItsTools: backup and restore on PostgreSQL
// explain pg_dump / pgBackRest and exit 2.
func TestBackupOnPostgresPointsToItsTools(t *testing.T) {
	for _, args := range [][]string{{"backup", "--to", "x"}, {"restore", "--from", "x"}} {
		out, err := cli(context.Background(), append(args, "--db", "postgres://slotd@127.0.0.1:1/slotd")...)
		var st *exitStatus
		cmd := args[0]
		if !errors.As(err, &st) || st.code != 2 || !strings.Contains(out, "pg_dump") || !strings.Contains(out, "pgBackRest") {
			t.Errorf("%s on PostgreSQL: %v\n%s", cmd, err, out)
		}
	}
}

// TestMigrateDryRun: --dry-run lists the pending migrations and applies
// none (on SQLite it does not even create the file); after migrate none is
// pending; on both stores.
func TestMigrateDryRun(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, db string, created func() bool) {
		out, err := cli(ctx, "migrate", "--dry-run", "--db", db)
		if err != nil || !strings.Contains(out, "pending: 00001_") || !strings.Contains(out, "pending: 00021_demo_marker.sql") ||
			!strings.Contains(out, "pending: 00016 (go)") {
			t.Fatalf("dry run on a new database: %v\n%s", err, out)
		}
		if created() {
			t.Fatal("the dry run created the database's tables")
		}
		if out, err := cli(ctx, "migrate", "--db", db); err != nil {
			t.Fatalf("migrate: %v\n%s", err, out)
		}
		if out, err := cli(ctx, "migrate", "--dry-run", "--db", db); err != nil || !strings.Contains(out, "0 pending migrations") || strings.Contains(out, "pending: ") {
			t.Fatalf("dry run after migrate: %v\n%s", err, out)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "d", "slotd.db")
		check(t, "sqlite:"+path, func() bool { _, err := os.Stat(path); return err == nil })
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		keys, err := cli(ctx, "data-keys")
		mustNil(t, err)
		t.Setenv("SLOTD_DATA_KEYS", strings.TrimSpace(keys))
		check(t, dsn, func() bool {
			out, _ := cli(ctx, "migrate", "--dry-run", "--db", dsn)
			return !strings.Contains(out, "pending: 00001_")
		})
	})
}

// TestInitRefusesToOverwrite: init writes each secret 0600, refuses to
// replace an existing one (and then touches no database), and needs
// --secrets or --print.
func TestInitRefusesToOverwrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	secrets := filepath.Join(dir, "secrets")
	db := "sqlite:" + filepath.Join(dir, "data", "slotd.db")
	if _, err := cli(ctx, "init", "--db", db); err == nil {
		t.Fatal("init without --secrets or --print was accepted")
	}
	out, err := cli(ctx, "init", "--secrets", secrets, "--db", db, "--currency", "XYZ")
	if err == nil {
		t.Fatalf("a bad currency was accepted:\n%s", out)
	}
	out, err = cli(ctx, "init", "--secrets", secrets, "--db", db)
	if err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	for _, f := range []string{authSecretFile, dataKeysFile, paymentSecretFile} {
		fi, err := os.Stat(filepath.Join(secrets, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v, want mode 0600", f, fi, err)
		}
	}
	keys, err := os.ReadFile(filepath.Join(secrets, dataKeysFile))
	mustNil(t, err)
	if out, err := cli(ctx, "init", "--secrets", secrets, "--db", "sqlite:"+filepath.Join(dir, "other.db")); err == nil || !strings.Contains(err.Error(), "never overwrites") {
		t.Fatalf("a second init over the secrets: %v\n%s", err, out)
	}
	if again, _ := os.ReadFile(filepath.Join(secrets, dataKeysFile)); !bytes.Equal(again, keys) {
		t.Fatal("the data keys were replaced")
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); err == nil {
		t.Fatal("a refused init created a database")
	}
	// The same database again, with fresh secrets elsewhere: its admin
	// exists (and its keys differ), so it is refused and the new files go.
	fresh := filepath.Join(dir, "fresh")
	if out, err := cli(ctx, "init", "--secrets", fresh, "--db", db); err == nil {
		t.Fatalf("init of an initialised database: %s", out)
	}
	if _, err := os.Stat(filepath.Join(fresh, dataKeysFile)); err == nil {
		t.Fatal("a failed init left its new keys behind")
	}
}
