package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/rush"
)

// TestPersonalDataAtRest runs `slotd serve --demo` on each store, then a
// rush, a sign-in by the national form of a demo phone, an export and an
// erasure, stops it, and finds none of the demo patients' names, phones or
// e-mails in the database (the SQLite files with their WAL; every column of
// every PostgreSQL table) nor in the logs (docs/personal-data.md).
func TestPersonalDataAtRest(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			secret := strings.Repeat("s", auth.MinSecretLen)
			args := []string{"serve", "--demo", "--drain=0", "--addr", "127.0.0.1:0", "--log-format", "json", "--auth-secret", secret}
			var dsn string
			if kind == "sqlite" {
				args = append(args, "--db", "sqlite:"+filepath.Join(dir, "slotd.db"))
			} else {
				dsn = pgtest.DSN(t)
				args = append(args, "--db", dsn, "--data-keys", pii.Generate())
			}
			ctx, stop := context.WithCancel(context.Background())
			var out, errb syncBuffer
			done := make(chan error, 1)
			go func() { done <- run(ctx, args, &out, &errb) }()
			base := waitURL(t, &out, &errb, done)
			signer, err := auth.NewSigner([]byte(secret))
			mustNil(t, err)
			admin, _ := signer.Mint(auth.RoleAdmin, "dpo", time.Hour)

			// The demo's patients, as staff export them.
			// The export's patient; its history's before/after are JSON
			// objects on the wire, not booking.AuditEntry's strings.
			type export struct{ Patient booking.Patient }
			type person struct {
				id                 int64
				name, phone, email string
			}
			var people []person
			for id := int64(1); ; id++ {
				var ex export
				if getJSON(t, base+fmt.Sprintf("/api/admin/patients/%d/data", id), admin, &ex) == http.StatusNotFound {
					break
				}
				people = append(people, person{id, ex.Patient.Name, ex.Patient.Phone, ex.Patient.Email})
			}
			if len(people) < 10 || people[0].phone == "" || people[0].email == "" {
				t.Fatalf("demo patients: %+v", people)
			}

			// A rush of its own patients and bookings.
			cfg, err := rush.Preset(rush.ScenarioVaccination)
			mustNil(t, err)
			var rlog bytes.Buffer
			cfg.Target, cfg.Signer, cfg.Out, cfg.Log = base, signer, t.TempDir(), &rlog
			cfg.Slots, cfg.Capacity, cfg.Patients = 2, 5, 30
			cfg.Rate, cfg.Duration, cfg.OpenIn, cfg.SetupWorkers = 100, 2*time.Second, time.Second, 4
			rep, err := rush.Run(context.Background(), cfg)
			if err != nil || !rep.Passed() {
				t.Fatalf("rush: %v\n%s", err, rlog.String())
			}

			// Sign-in by the national form of the first demo phone (FR).
			national := "0" + strings.TrimPrefix(people[0].phone, "+33")
			if !signIn(t, base, national) {
				t.Fatalf("sign-in with %s failed", national)
			}
			// The patient's own export, and another's refused.
			tok, _ := signer.Mint(auth.RolePatient, fmt.Sprint(people[0].id), time.Hour)
			var mine export
			if st := getJSON(t, base+"/api/me/data", tok, &mine); st != 200 || mine.Patient.Phone != people[0].phone {
				t.Fatalf("GET /api/me/data: %d %+v", st, mine.Patient)
			}
			if st := getJSON(t, base+fmt.Sprintf("/api/admin/patients/%d/data", people[1].id), tok, nil); st != http.StatusForbidden {
				t.Fatalf("a patient reading another's data: %d, want 403", st)
			}
			// Erasure: the phone no longer signs in.
			req, _ := http.NewRequest("DELETE", base+fmt.Sprintf("/api/admin/patients/%d", people[1].id), strings.NewReader(`{"reason":"the patient asked"}`))
			req.Header.Set("Authorization", "Bearer "+admin)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			mustNil(t, err)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("erasure: %d", res.StatusCode)
			}
			if signIn(t, base, people[1].phone) {
				t.Fatal("the erased patient signed in")
			}

			var page struct{ Items []booking.Doctor }
			getJSON(t, base+"/api/doctors", "", &page)
			doctors := page.Items
			var doctorNames strings.Builder
			for _, d := range doctors {
				doctorNames.WriteString(d.Name + "\n")
			}
			stop()
			if err := <-done; err != nil {
				t.Fatalf("serve: %v", err)
			}
			var stored []byte
			if kind == "sqlite" {
				for _, f := range []string{"slotd.db", "slotd.db-wal"} {
					b, err := os.ReadFile(filepath.Join(dir, f))
					if err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
					stored = append(stored, b...)
				}
			} else {
				stored = allRows(t, dsn)
			}
			logs := errb.String()
			checked := 0
			for _, p := range people {
				for _, v := range []string{p.phone, strings.TrimPrefix(p.phone, "+"), p.email, p.name} {
					// A demo patient's name may also be part of a doctor's.
					if v == p.name && strings.Contains(doctorNames.String(), v) {
						continue
					}
					checked++
					if bytes.Contains(stored, []byte(v)) {
						t.Errorf("the %s database holds %q in plain", kind, v)
					}
					if strings.Contains(logs, v) {
						t.Errorf("the log holds %q", v)
					}
				}
			}
			t.Logf("%d demo patients, %d values looked for in %d bytes of database and %d of logs", len(people), checked, len(stored), len(logs))
		})
	}
}

func getJSON(t *testing.T, u, token string, v any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	mustNil(t, err)
	defer res.Body.Close()
	if res.StatusCode == 200 && v != nil {
		mustNil(t, json.NewDecoder(res.Body).Decode(v))
	}
	return res.StatusCode
}

var (
	csrfRE     = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	demoCodeRE = regexp.MustCompile(`data-demo-code>([0-9]+)<`)
	verifyRE   = regexp.MustCompile(`action="/signin/verify"[\s\S]*?name="csrf" value="([^"]+)"`)
)

// signIn signs in on the web pages with phone (the demo shows the code)
// and reports whether it worked.
func signIn(t *testing.T, base, phone string) bool {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(res *http.Response, err error) string {
		t.Helper()
		mustNil(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return html.UnescapeString(string(b))
	}
	body := page(c.Get(base + "/signin"))
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on /signin")
	}
	body = page(c.PostForm(base+"/signin", url.Values{"csrf": {m[1]}, "phone": {phone}}))
	code := demoCodeRE.FindStringSubmatch(body)
	if code == nil {
		return false // the same page as for a registered phone, without a code
	}
	verify := verifyRE.FindStringSubmatch(body)
	if verify == nil {
		t.Fatal("no code form")
	}
	res, err := c.PostForm(base+"/signin/verify", url.Values{"csrf": {verify[1]}, "phone": {phone}, "code": {code[1]}})
	mustNil(t, err)
	res.Body.Close()
	return res.StatusCode == http.StatusSeeOther && strings.HasPrefix(res.Header.Get("Location"), "/appointments")
}

// allRows is every column of every row of every table of the public schema,
// raw: what a dump of the database holds.
func allRows(t *testing.T, dsn string) []byte {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	mustNil(t, err)
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	mustNil(t, err)
	var out []byte
	for _, tb := range tables {
		rows, err := conn.Query(ctx, `SELECT * FROM `+pgx.Identifier{tb}.Sanitize())
		mustNil(t, err)
		for rows.Next() {
			for _, v := range rows.RawValues() {
				out = append(append(out, v...), 0)
			}
		}
		rows.Close()
		mustNil(t, rows.Err())
	}
	return out
}

// TestRekeyCommand: `slotd data-keys --add` rotates, `slotd rekey` re-seals
// in batches and resumes after stopping (--max-batches), a lost key stops
// the start, and PostgreSQL without keys says what to set.
func TestRekeyCommand(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	slotd := func(args ...string) (string, error) {
		var out, errb syncBuffer
		err := run(context.Background(), args, &out, &errb)
		return out.String() + errb.String(), err
	}
	text1, err := slotd("data-keys")
	mustNil(t, err)
	text1 = strings.TrimSpace(text1)
	if out, err := slotd("demo-data", "--db", db, "--data-keys", text1, "--doctors", "1", "--days", "1", "--patients", "12"); err != nil {
		t.Fatalf("demo-data: %v %s", err, out)
	}
	text2, err := slotd("data-keys", "--add", "--data-keys", text1)
	mustNil(t, err)
	text2 = strings.TrimSpace(text2)
	out, err := slotd("rekey", "--db", db, "--data-keys", text2, "--batch", "5", "--max-batches", "1")
	if err != nil || !strings.Contains(out, "re-sealed 5 patients; key 1: 7 key 2: 5") {
		t.Fatalf("one batch: %v %q", err, out)
	}
	only2 := strings.Join(slicesWithout(strings.Split(text2, ","), "1:"), ",")
	if out, err := slotd("migrate", "--db", db, "--data-keys", only2); err == nil || !strings.Contains(err.Error(), "data key 1 is missing") {
		t.Fatalf("key 1 dropped too soon: %v %s", err, out)
	}
	out, err = slotd("rekey", "--db", db, "--data-keys", text2, "--batch", "5")
	if err != nil || !strings.Contains(out, "re-sealed 7 patients; key 2: 12") {
		t.Fatalf("resumed: %v %q", err, out)
	}
	if out, err := slotd("migrate", "--db", db, "--data-keys", only2); err != nil {
		t.Fatalf("key 1 retired: %v %s", err, out)
	}
	if out, err := slotd("migrate", "--db", db, "--data-keys", pii.Generate()); err == nil || !strings.Contains(err.Error(), "do not match") {
		t.Fatalf("wrong keys: %v %s", err, out)
	}
	if _, err := slotd("migrate", "--db", pgtest.DSN(t)); err == nil || !strings.Contains(err.Error(), "SLOTD_DATA_KEYS") {
		t.Fatalf("PostgreSQL without keys: %v", err)
	}
}

func slicesWithout(es []string, prefix string) []string {
	var out []string
	for _, e := range es {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}
