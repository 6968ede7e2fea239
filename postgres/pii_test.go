package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
)

const plainPatients = 2*sealBatch + 7

func plainName(i int) string { return fmt.Sprintf("Plainname Person%04d", i) }
func plainPhone(i int) string {
	return fmt.Sprintf("+33 6 %02d %02d %02d %02d", i/1000000%100, i/10000%100, i/100%100, i%100)
}
func plainEmail(i int) string { return fmt.Sprintf("plain.person%04d@clinic.example", i) }

func without(text string, id int) string {
	var keep []string
	for _, e := range strings.Split(text, ",") {
		if !strings.HasPrefix(e, fmt.Sprint(id)+":") {
			keep = append(keep, e)
		}
	}
	return strings.Join(keep, ",")
}

func openMigrated(t *testing.T, dsn, text string) (*Store, error) {
	t.Helper()
	k, err := pii.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := MigrateKeys(context.Background(), dsn, k); err != nil {
		return nil, err
	}
	s, err := Open(context.Background(), dsn, Options{Keys: k})
	if err != nil {
		t.Fatal(err)
	}
	return s, nil
}

// AllRowBytes returns the raw values of every column of every row of every
// table of the public schema: what a dump of the database would hold.
func AllRowBytes(t testing.TB, pool interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) []byte {
	t.Helper()
	ctx := context.Background()
	rows, err := pool.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, tb := range tables {
		rows, err := pool.Query(ctx, `SELECT * FROM `+pgx.Identifier{tb}.Sanitize())
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			for _, v := range rows.RawValues() {
				out = append(append(out, v...), 0)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestSealMigration: a database at version 15 with plain personal data,
// after the start's migration, holds none of it in any table (nor in the
// patients table's file, when the server's files are readable), still
// finds every patient by phone, and refuses a lost or wrong key; a rotation
// re-seals in batches, resumes after an interruption, and lets the old key
// go.
func TestSealMigration(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	must(t, migrateTo(ctx, dsn, 15))
	conn, err := pgx.Connect(ctx, dsn)
	must(t, err)
	for i := range plainPatients {
		_, err := conn.Exec(ctx, `INSERT INTO patients (name, phone, email) VALUES ($1, $2, $3)`, plainName(i), plainPhone(i), plainEmail(i))
		must(t, err)
	}
	_, err = conn.Exec(ctx, `INSERT INTO patients (name, phone) VALUES ('Plainname Twin', $1)`, plainPhone(0))
	must(t, err)
	must(t, conn.Close(ctx))

	text := pii.Generate()
	if err := Migrate(ctx, dsn); err == nil || !strings.Contains(err.Error(), "data keys") {
		t.Fatalf("migrating plain rows without keys: %v, want a clear error", err)
	}
	s, err := openMigrated(t, dsn, text)
	must(t, err)
	raw := AllRowBytes(t, s.pool)
	for _, plain := range []string{"Plainname", "Person0", "clinic.example", "plain.person", "+33 6 "} {
		if bytes.Contains(raw, []byte(plain)) {
			t.Fatalf("the tables hold %q in plain after the migration", plain)
		}
	}
	var dir, rel string
	_, err = s.pool.Exec(ctx, `CHECKPOINT`)
	must(t, err)
	if err := s.pool.QueryRow(ctx, `SELECT current_setting('data_directory'), pg_relation_filepath('patients')`).Scan(&dir, &rel); err == nil {
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
			if bytes.Contains(b, []byte("Plainname")) || bytes.Contains(b, []byte("clinic.example")) {
				t.Fatal("the patients table's file holds plain values after the migration")
			}
		} else {
			t.Logf("the server's files are not readable here (%v): the table check stands alone", err)
		}
	}
	for _, i := range []int{0, 1, sealBatch, plainPatients - 1} {
		p, err := s.PatientByPhone(ctx, strings.ReplaceAll(plainPhone(i), " ", ""))
		if err != nil || p.Name != plainName(i) || p.Phone != plainPhone(i) || p.Email != plainEmail(i) {
			t.Fatalf("patient %d by phone: %+v (%v)", i, p, err)
		}
	}
	// A national ID number (real-name registration), sealed with key 1,
	// is re-sealed by the rotation below like the rest.
	nid := "11010519900101123X"
	_, err = s.UpdatePatient(ctx, 1, booking.PatientUpdate{NationalID: &nid})
	must(t, err)
	s.Close()

	for name, bad := range map[string]string{
		"other keys":          pii.Generate(),
		"wrong data key 1":    without(text, 1) + ",1:" + strings.Split(pii.Generate(), ",1:")[1],
		"data key 1 missing":  without(pii.AddKey(text, 1), 1),
		"wrong index, key ok": strings.Split(pii.Generate(), ",")[0] + "," + strings.Split(text, ",")[1],
	} {
		if _, err := openMigrated(t, dsn, bad); !errors.Is(err, pii.ErrKeys) {
			t.Errorf("%s: %v, want pii.ErrKeys", name, err)
		}
	}

	text2 := pii.AddKey(text, 1)
	s, err = openMigrated(t, dsn, text2)
	must(t, err)
	if n, err := s.Rekey(ctx, sealBatch); err != nil || n != sealBatch {
		t.Fatalf("first batch: %d (%v)", n, err)
	}
	counts, err := s.SealedWith(ctx)
	must(t, err)
	if counts[1] != plainPatients+1-sealBatch || counts[2] != sealBatch {
		t.Fatalf("after one batch: %v", counts)
	}
	s.Close()
	if _, err := openMigrated(t, dsn, without(text2, 1)); !errors.Is(err, pii.ErrKeys) {
		t.Fatalf("key 1 dropped before the rekey finished: %v, want pii.ErrKeys", err)
	}
	s, err = openMigrated(t, dsn, text2)
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
	s.Close()
	s, err = openMigrated(t, dsn, without(text2, 1))
	must(t, err)
	defer s.Close()
	if p, err := s.GetPatient(ctx, 1); err != nil || p.Name != plainName(0) || p.NationalID != nid {
		t.Fatalf("after retiring key 1: %+v (%v)", p, err)
	}
}

// TestOpenWithoutKeys: PostgreSQL has no default key: every instance must
// be given the same ones.
func TestOpenWithoutKeys(t *testing.T) {
	if _, err := Open(context.Background(), pgtest.DSN(t), Options{}); err == nil || !strings.Contains(err.Error(), "SLOTD_DATA_KEYS") {
		t.Fatalf("Open without keys: %v", err)
	}
}

// TestBookingOpensNothing: the booking path needs patient ids only. With
// keys that open no patient's data, booking, replays, listing and
// cancelling still work; only reading a patient fails.
func TestBookingOpensNothing(t *testing.T) {
	f := newFix(t)
	sl := f.slot(3)
	var ps []booking.Patient
	for i := range 3 {
		p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "Sealed", Phone: fmt.Sprintf("+3361111111%d", i), Email: "s@example.org"})
		must(t, err)
		ps = append(ps, p)
	}
	f.s.keys = pii.New() // none of the rows opens with these
	reqs := []booking.BookRequest{rq(ps[0], sl.ID, "a"), rq(ps[1], sl.ID, "b")}
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
