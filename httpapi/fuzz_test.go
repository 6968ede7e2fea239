package httpapi

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// The fuzz targets; seeds in testdata/fuzz/<target>/. scripts/fuzz runs each
// for a few seconds (CI) and prints the executions; `go test` runs the seeds.

// FuzzDecodeJSON: any Content-Type and body is decoded or refused with a
// 4xx code of the problem table; what is decoded was valid JSON.
func FuzzDecodeJSON(f *testing.F) {
	f.Add("application/json", []byte(`{"slotId": 41}`))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		r := httptest.NewRequest("POST", "/api/appointments", bytes.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 1<<10)
		var v bookRequest
		err := decodeJSON(r, &v)
		if err == nil {
			if !json.Valid(body) {
				t.Fatalf("decoded %q, which is not JSON", body)
			}
			return
		}
		var be *booking.Error
		if !errors.As(err, &be) || problem.Of(be.Code).Status >= 500 || problem.Of(be.Code).Status < 400 {
			t.Fatalf("refusal %v is not a 4xx of the problem table", err)
		}
	})
}

// FuzzIdempotencyKey: a key is accepted exactly when it is 1 to 64 visible
// ASCII characters given once; anything else is a 4xx.
func FuzzIdempotencyKey(f *testing.F) {
	f.Add("k-1", "")
	f.Fuzz(func(t *testing.T, k1, k2 string) {
		r := httptest.NewRequest("POST", "/api/appointments", nil)
		r.Header["Idempotency-Key"] = []string{k1}
		if k2 != "" {
			r.Header["Idempotency-Key"] = append(r.Header["Idempotency-Key"], k2)
		}
		got, err := idempotencyKey(r)
		valid := k2 == "" && len(k1) >= 1 && len(k1) <= booking.MaxIdempotencyKeyLen
		for i := 0; i < len(k1); i++ {
			valid = valid && k1[i] >= 0x21 && k1[i] <= 0x7e
		}
		switch {
		case valid && (err != nil || got != k1):
			t.Fatalf("key %q refused: %v", k1, err)
		case !valid && err == nil:
			t.Fatalf("keys %q, %q accepted as %q", k1, k2, got)
		case err != nil && problem.Of(booking.ErrorCode(err)).Status != 400:
			t.Fatalf("keys %q, %q refused with %v, want a 400", k1, k2, err)
		}
	})
}

// fuzzAPI is the API over one store with a few slots and patients, and a
// snapshot of every row to prove that a refused request changed nothing.
type fuzzAPI struct {
	srv      *httptest.Server
	snapshot func() string
	tokens   []string // "", patient A, patient B, doctor, admin, expired, forged
	ids      []string // ids worth trying in paths: slots, appointments, doctors…
}

func newFuzzAPI(tb testing.TB, store booking.Store, snapshot func() string) *fuzzAPI {
	ctx := context.Background()
	clk := newClock(t0)
	signer, err := auth.NewSigner(testSecret)
	if err != nil {
		tb.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	dept, err := store.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(err)
	doc, err := store.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Weber", DepartmentID: dept.ID, TimeZone: "Europe/Berlin"})
	must(err)
	a := &fuzzAPI{snapshot: snapshot}
	var pats []booking.Patient
	for i := range 2 {
		p, err := store.CreatePatient(ctx, booking.Patient{Name: "Anna", Phone: fmt.Sprintf("+49301234567%d", i), Email: "anna@example.org"})
		must(err)
		pats = append(pats, p)
	}
	for i, sl := range []booking.Slot{
		{Capacity: 2},                // open
		{Capacity: 1},                // full below
		{Capacity: 3, FeeCents: 500}, // holds
		{Capacity: 2, Status: booking.SlotClosed},
		{Capacity: 2, OpensAt: t0.Add(time.Hour)}, // not open yet
	} {
		start := t0.Add(time.Duration(24+i) * time.Hour)
		sl.DoctorID, sl.StartAt, sl.EndAt, sl.HoldSeconds = doc.ID, start, start.Add(30*time.Minute), 900
		if sl.Status == "" {
			sl.Status = booking.SlotOpen
		}
		if sl.OpensAt.IsZero() {
			sl.OpensAt = t0.Add(-time.Hour)
		}
		created, err := store.CreateSlot(ctx, sl)
		must(err)
		a.ids = append(a.ids, fmt.Sprint(created.ID))
		if i == 1 {
			res, err := store.Book(ctx, created.ID, []booking.BookRequest{{PatientID: pats[1].ID, IdempotencyKey: "seed", Fingerprint: booking.Fingerprint(created.ID)}}, t0)
			must(err)
			a.ids = append(a.ids, fmt.Sprint(res[0].Appointment.ID))
		}
	}
	a.ids = append(a.ids, fmt.Sprint(doc.ID), "0", "-1", "9223372036854775807", "x")
	mint := func(r auth.Role, sub string, ttl time.Duration) string {
		tok, err := signer.Mint(r, sub, ttl)
		must(err)
		return tok
	}
	a.tokens = []string{"", mint(auth.RolePatient, fmt.Sprint(pats[0].ID), 0), mint(auth.RolePatient, fmt.Sprint(pats[1].ID), 0),
		mint(auth.RoleDoctor, fmt.Sprint(doc.ID), 0), mint(auth.RoleAdmin, "1", 0),
		expiredToken(tb, auth.RoleAdmin, "1"), forgedToken(tb, auth.RoleAdmin, "1")}
	svc := service.NewService(store, service.Options{Now: clk.Now, Timeout: 5 * time.Second, BookingRate: 1 << 30})
	a.srv = httptest.NewServer(New(Config{Service: svc, Store: store, Signer: signer, Logger: discardLogger(), Now: clk.Now}))
	tb.Cleanup(a.srv.Close)
	return a
}

// send sends one request and checks the properties: no 5xx, every 4xx a
// problem+json of the table, and a 4xx changed nothing.
func (a *fuzzAPI) send(t *testing.T, method, path string, token uint8, header map[string]string, body []byte) {
	before := a.snapshot()
	req, err := http.NewRequest(method, a.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return // not a request a client can send
	}
	req.Header.Set("Content-Type", "application/json")
	if tok := a.tokens[int(token)%len(a.tokens)]; tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for k, v := range header {
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 && v[i] != '\t' || v[i] == 0x7f {
				return // net/http refuses to send it
			}
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s %q: %d %s", method, path, body, resp.StatusCode, out)
	}
	if resp.StatusCode >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("%s %s: %d with Content-Type %q", method, path, resp.StatusCode, ct)
		}
		if after := a.snapshot(); after != before {
			t.Fatalf("%s %s %q answered %d %s but changed the rows", method, path, body, resp.StatusCode, out)
		}
	}
}

func sqliteFuzzAPI(f *testing.F) *fuzzAPI {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(f.TempDir(), "slotd.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		f.Fatal(err)
	}
	return newFuzzAPI(f, db, func() string { return sqliteRows(f, db.DB()) })
}

func postgresFuzzAPI(f *testing.F) *fuzzAPI {
	ctx := context.Background()
	dsn := pgtest.DSN(f)
	if err := postgres.Migrate(ctx, dsn); err != nil {
		f.Fatal(err)
	}
	s, err := postgres.Open(ctx, dsn, postgres.Options{Keys: pii.New()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	return newFuzzAPI(f, s, func() string {
		// Every row of every table of the schema, as text, in a stable order.
		var sb strings.Builder
		rows, err := s.Pool().Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1`)
		if err != nil {
			f.Fatal(err)
		}
		tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			f.Fatal(err)
		}
		for _, tb := range tables {
			rows, _ := s.Pool().Query(ctx, fmt.Sprintf(`SELECT t::text FROM %s t ORDER BY 1`, pgx.Identifier{tb}.Sanitize()))
			vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				f.Fatal(err)
			}
			fmt.Fprintf(&sb, "== %s\n%s\n", tb, strings.Join(vals, "\n"))
		}
		return sb.String()
	})
}

// sqliteRows renders every row of every table.
func sqliteRows(tb testing.TB, db *sql.DB) string {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		tb.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			tb.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	var sb strings.Builder
	for _, t := range tables {
		rs, err := db.Query(`SELECT * FROM "` + t + `"`)
		if err != nil {
			tb.Fatal(err)
		}
		cols, _ := rs.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var lines []string
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				tb.Fatal(err)
			}
			lines = append(lines, fmt.Sprint(vals...))
		}
		rs.Close()
		sort.Strings(lines)
		fmt.Fprintf(&sb, "== %s\n%s\n", t, strings.Join(lines, "\n"))
	}
	return sb.String()
}

// fuzzBooking: POST /api/appointments with any body, key and caller.
func fuzzBooking(f *testing.F, a *fuzzAPI) {
	f.Add([]byte(`{"slotId": 1}`), "key-1", uint8(1))
	f.Fuzz(func(t *testing.T, body []byte, key string, token uint8) {
		h := map[string]string{}
		if key != "" {
			h["Idempotency-Key"] = key
		}
		a.send(t, "POST", "/api/appointments", token, h, body)
	})
}

// adminRoutes are the admin operations that change something; {id} takes
// the fuzzed id.
var adminRoutes = []struct{ method, path string }{
	{"POST", "/api/admin/departments"}, {"POST", "/api/admin/doctors"}, {"POST", "/api/admin/patients"},
	{"POST", "/api/admin/doctors/{id}/schedules"}, {"POST", "/api/admin/doctors/{id}/slots/generate"},
	{"POST", "/api/admin/slots"}, {"PATCH", "/api/admin/slots/{id}"}, {"POST", "/api/admin/doctors/{id}/suspensions"},
	{"POST", "/api/admin/appointments/{id}/complete"}, {"POST", "/api/admin/appointments/{id}/no-show"},
	{"POST", "/api/admin/rooms"}, {"POST", "/api/admin/rounds"}, {"POST", "/api/admin/rounds/{id}/slots"},
	{"POST", "/api/admin/rounds/{id}/open"}, {"POST", "/api/admin/rounds/{id}/close"},
	{"DELETE", "/api/appointments/{id}"}, {"POST", "/api/payments/callback"},
}

// fuzzAdmin: an admin (or any caller) sends any body to any of them.
func fuzzAdmin(f *testing.F, a *fuzzAPI) {
	f.Add(uint8(5), uint8(0), "", []byte(`{"doctorId": 1, "startAt": "2026-03-04T08:00:00Z", "durationMinutes": 30, "capacity": 2}`), uint8(4))
	f.Fuzz(func(t *testing.T, route, idx uint8, id string, body []byte, token uint8) {
		r := adminRoutes[int(route)%len(adminRoutes)]
		if id == "" {
			id = a.ids[int(idx)%len(a.ids)]
		}
		a.send(t, r.method, strings.ReplaceAll(r.path, "{id}", url.PathEscape(id)), token, nil, body)
	})
}

func FuzzBookingSQLite(f *testing.F)   { fuzzBooking(f, sqliteFuzzAPI(f)) }
func FuzzBookingPostgres(f *testing.F) { fuzzBooking(f, postgresFuzzAPI(f)) }
func FuzzAdminSQLite(f *testing.F)     { fuzzAdmin(f, sqliteFuzzAPI(f)) }
func FuzzAdminPostgres(f *testing.F)   { fuzzAdmin(f, postgresFuzzAPI(f)) }

// expiredToken is a token of testSecret that expired an hour ago (the
// signer only mints live ones).
func expiredToken(tb testing.TB, role auth.Role, sub string) string {
	return signRaw(tb, testSecret, role, sub, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
}

// forgedToken is a live token signed with another secret.
func forgedToken(tb testing.TB, role auth.Role, sub string) string {
	return signRaw(tb, []byte(strings.Repeat("f", auth.MinSecretLen)), role, sub, time.Now(), time.Now().Add(time.Hour))
}

func signRaw(tb testing.TB, secret []byte, role auth.Role, sub string, iat, exp time.Time) string {
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"role": string(role), "sub": sub, "iat": iat.Unix(), "exp": exp.Unix(),
	}).SignedString(secret)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}
