package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/pii"
)

// plainPatients is how many rows a version-15 database holds in plain:
// more than two conversion batches.
const plainPatients = 2*sealBatch + 7

func plainName(i int) string { return fmt.Sprintf("Plainname Person%04d", i) }
func plainPhone(i int) string {
	return fmt.Sprintf("+33 6 %02d %02d %02d %02d", i/1000000%100, i/10000%100, i/100%100, i%100)
}
func plainEmail(i int) string { return fmt.Sprintf("plain.person%04d@clinic.example", i) }

// without returns keys' text without data key id.
func without(text string, id int) string {
	var keep []string
	for _, e := range strings.Split(text, ",") {
		if !strings.HasPrefix(e, fmt.Sprint(id)+":") {
			keep = append(keep, e)
		}
	}
	return strings.Join(keep, ",")
}

func openMigrated(t *testing.T, path, text string) (*Store, error) {
	t.Helper()
	k, err := pii.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenKeys(context.Background(), path, k)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(context.Background()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// TestSealMigration: a database at version 15 with plain personal data,
// after the start's migration, holds none of it in its files (database and
// WAL), still finds every patient by phone (the oldest of two sharing one,
// as before), and refuses a lost or wrong key; a rotation re-seals in
// batches, resumes after an interruption, and lets the old key go.
func TestSealMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v15.db")
	text := pii.Generate()
	k, _ := pii.Parse(text)
	s, err := OpenKeys(ctx, path, k)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.migrateTo(ctx, 15); err != nil {
		t.Fatal(err)
	}
	for i := range plainPatients {
		if _, err := s.writer.Exec(`INSERT INTO patients (name, phone, email) VALUES (?, ?, ?)`, plainName(i), plainPhone(i), plainEmail(i)); err != nil {
			t.Fatal(err)
		}
	}
	// A later patient with the first one's phone: sign-in found the oldest.
	if _, err := s.writer.Exec(`INSERT INTO patients (name, phone) VALUES ('Plainname Twin', ?)`, plainPhone(0)); err != nil {
		t.Fatal(err)
	}
	must(t, s.Migrate(ctx))
	must(t, s.Close())
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		for _, plain := range []string{"Plainname", "Person0", "clinic.example", "plain.person", "+33 6 "} {
			if bytes.Contains(b, []byte(plain)) {
				t.Fatalf("%s holds %q in plain after the migration", filepath.Base(f), plain)
			}
		}
	}

	s, err = openMigrated(t, path, text)
	must(t, err)
	for _, i := range []int{0, 1, sealBatch, plainPatients - 1} {
		p, err := s.PatientByPhone(ctx, strings.ReplaceAll(plainPhone(i), " ", ""))
		if err != nil || p.Name != plainName(i) || p.Phone != plainPhone(i) || p.Email != plainEmail(i) {
			t.Fatalf("patient %d by phone: %+v (%v)", i, p, err)
		}
	}
	twin, err := s.GetPatient(ctx, plainPatients+1)
	if err != nil || twin.Name != "Plainname Twin" || twin.Phone != plainPhone(0) {
		t.Fatalf("the twin: %+v (%v)", twin, err)
	}
	// A national ID number (real-name registration), sealed with key 1,
	// is re-sealed by the rotation below like the rest.
	nid := "11010519900101123X"
	_, err = s.UpdatePatient(ctx, 1, booking.PatientUpdate{NationalID: &nid})
	must(t, err)
	must(t, s.Close())

	// A lost or wrong key is refused at start, never read as garbage.
	for name, bad := range map[string]string{
		"other keys":          pii.Generate(),
		"wrong data key 1":    without(text, 1) + ",1:" + strings.Split(pii.Generate(), ",1:")[1],
		"data key 1 missing":  without(pii.AddKey(text, 1), 1),
		"wrong index, key ok": strings.Split(pii.Generate(), ",")[0] + "," + strings.Split(text, ",")[1],
	} {
		if _, err := openMigrated(t, path, bad); !errors.Is(err, pii.ErrKeys) {
			t.Errorf("%s: %v, want pii.ErrKeys", name, err)
		}
	}

	// Rotation: key 2 seals; a rekey of one batch, interrupted, resumed.
	text2 := pii.AddKey(text, 1)
	s, err = openMigrated(t, path, text2)
	must(t, err)
	if n, err := s.Rekey(ctx, sealBatch); err != nil || n != sealBatch {
		t.Fatalf("first batch: %d (%v)", n, err)
	}
	counts, err := s.SealedWith(ctx)
	must(t, err)
	if counts[1] != plainPatients+1-sealBatch || counts[2] != sealBatch {
		t.Fatalf("after one batch: %v", counts)
	}
	must(t, s.Close())
	if _, err := openMigrated(t, path, without(text2, 1)); !errors.Is(err, pii.ErrKeys) {
		t.Fatalf("key 1 dropped before the rekey finished: %v, want pii.ErrKeys", err)
	}
	s, err = openMigrated(t, path, text2)
	must(t, err)
	total := sealBatch
	for {
		n, err := s.Rekey(ctx, sealBatch)
		must(t, err)
		if n == 0 {
			break
		}
		total += n
	}
	if counts, _ := s.SealedWith(ctx); total != plainPatients+1 || counts[1] != 0 || counts[2] != plainPatients+1 {
		t.Fatalf("after the rekey: %d re-sealed, %v", total, counts)
	}
	must(t, s.Close())
	// Key 1 is retired: nothing needs it.
	s, err = openMigrated(t, path, without(text2, 1))
	must(t, err)
	defer s.Close()
	if p, err := s.GetPatient(ctx, 1); err != nil || p.Name != plainName(0) || p.NationalID != nid {
		t.Fatalf("after retiring key 1: %+v (%v)", p, err)
	}
}

// TestNewDatabaseKeyFile: a database opened without keys gets a key file
// beside it (mode 0600), and reopening uses it.
func TestNewDatabaseKeyFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "d", "slotd.db")
	s, err := Open(ctx, path)
	must(t, err)
	must(t, s.Migrate(ctx))
	p, err := s.CreatePatient(ctx, booking.Patient{Name: "Keyfile Person", Phone: "+33600000123"})
	must(t, err)
	must(t, s.Close())
	fi, err := os.Stat(KeyFileOf(path))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	s, err = Open(ctx, path)
	must(t, err)
	defer s.Close()
	must(t, s.Migrate(ctx))
	if got, err := s.GetPatient(ctx, p.ID); err != nil || got.Name != "Keyfile Person" {
		t.Fatalf("reopened: %+v (%v)", got, err)
	}
}

// must fails the test at once on an error.
var must = testkit.NoError

// TestBookingOpensNothing: the booking path needs patient ids only. With
// keys that open no patient's data, booking, replays, listing and
// cancelling still work; only reading a patient fails.
func TestBookingOpensNothing(t *testing.T) {
	f := newFx(t)
	sl := f.slot(3)
	var ps []booking.Patient
	for i := range 3 {
		p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "Sealed", Phone: fmt.Sprintf("+3361111111%d", i), Email: "s@example.org"})
		must(t, err)
		ps = append(ps, p)
	}
	f.s.keys = pii.New() // none of the rows opens with these
	reqs := []booking.BookRequest{rq(ps[0].ID, sl.ID, "a"), rq(ps[1].ID, sl.ID, "b")}
	res, err := f.s.Book(f.ctx, sl.ID, reqs, testNow)
	must(t, err)
	for _, r := range res {
		must(t, r.Err)
	}
	again, err := f.s.Book(f.ctx, sl.ID, reqs[:1], testNow)
	if err != nil || !again[0].Replayed {
		t.Fatalf("replay: %+v (%v)", again, err)
	}
	if _, err := f.s.FindByKeys(f.ctx, reqs); err != nil {
		t.Fatal(err)
	}
	if as, err := f.s.ListAppointments(f.ctx, booking.AppointmentQuery{PatientID: ps[0].ID}); err != nil || len(as) != 1 {
		t.Fatalf("list: %v %v", as, err)
	}
	if _, err := f.s.Cancel(f.ctx, res[1].Appointment.ID, ps[1].ID, testNow); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.GetPatient(f.ctx, ps[0].ID); !errors.Is(err, pii.ErrWrongKey) {
		t.Fatalf("reading a patient with the wrong keys: %v, want pii.ErrWrongKey", err)
	}
}
