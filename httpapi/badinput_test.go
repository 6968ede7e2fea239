package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// TestBadInputNeverServerError sends malformed input to every endpoint and
// checks that each answer is a 4xx problem+json (env.do checks the media
// type, the problem table and the OpenAPI document) and that nothing in
// the database changed.
func TestBadInputNeverServerError(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	p := e.patient()
	e.do(book(e.patientToken(p.ID), "seed", slotBody(sl.ID))).expect(t, 201)
	before := e.snapshot()

	pid := int64(1000)
	patient := func() string { pid++; return e.patientToken(pid) }
	doc := fmt.Sprint(f.doctor.ID)

	badIDs := []string{"0", "-1", "abc", "1.5", "99999999999999999999", "0x10", "%20", "1e3"}
	badBodies := []string{
		``, `{`, `[]`, `null`, `"x"`, `{}{}`, `{} trailing`, `{"unknown":1}`,
		`{"name":1}`, `{"slotId":"1"}`, `{"capacity":"big"}`, `{"weekdays":"mon"}`,
		`{"from":2026}`, `{"startAt":"tomorrow"}`, "\xff\xfe",
		`{"name":"` + strings.Repeat("x", 17<<10) + `"}`,
	}
	type endpoint struct {
		method, path string // path with %s for the id
		admin        bool
		hasID        bool
		body         bool
		queries      []string
	}
	endpoints := []endpoint{
		{method: "GET", path: "/api/departments", queries: []string{"x=1"}},
		{method: "GET", path: "/api/doctors", queries: []string{"departmentId=0", "departmentId=abc", "departmentId=1&departmentId=2", "departmentId=-5", "other=1", "departmentId=%zz"}},
		{method: "GET", path: "/api/doctors/%s", hasID: true},
		{method: "GET", path: "/api/doctors/%s/slots", hasID: true, queries: []string{"date=2026-3-2", "date=2026-02-30", "date=today", "date=", "date=2026-03-02&date=2026-03-03", "day=2026-03-02"}},
		{method: "GET", path: "/api/doctors/%s/availability", hasID: true, queries: []string{"from=x", "to=2026-13-01", "from=2026-03-05&to=2026-03-01", "from=2026-01-01&to=2026-12-31", "from=", "days=3"}},
		{method: "GET", path: "/api/slots/%s", hasID: true},
		{method: "POST", path: "/api/admin/departments", admin: true, body: true},
		{method: "GET", path: "/api/admin/departments", admin: true, queries: []string{"x=1", "limit=0", "cursor=zz"}},
		{method: "POST", path: "/api/admin/doctors", admin: true, body: true},
		{method: "POST", path: "/api/admin/patients", admin: true, body: true},
		{method: "GET", path: "/api/admin/patients/%s", admin: true, hasID: true},
		{method: "DELETE", path: "/api/admin/patients/%s", admin: true, hasID: true, body: true},
		{method: "GET", path: "/api/admin/patients/%s/data", admin: true, hasID: true},
		{method: "POST", path: "/api/admin/doctors/%s/schedules", admin: true, hasID: true, body: true},
		{method: "GET", path: "/api/admin/doctors/%s/schedules", admin: true, hasID: true},
		{method: "POST", path: "/api/admin/doctors/%s/slots/generate", admin: true, hasID: true, body: true},
		{method: "POST", path: "/api/admin/slots", admin: true, body: true},
		{method: "PATCH", path: "/api/admin/slots/%s", admin: true, hasID: true, body: true},
		{method: "GET", path: "/api/appointments/%s", hasID: true},
		{method: "DELETE", path: "/api/appointments/%s", hasID: true},
		{method: "GET", path: "/api/me/appointments", queries: []string{"status=", "status=GONE", "status=BOOKED&status=HELD", "page=2"}},
	}
	tokenFor := func(ep endpoint) string {
		if ep.admin {
			return e.admin
		}
		return patient()
	}
	validID := func(ep endpoint) string {
		if strings.Contains(ep.path, "slots/%s") && !strings.Contains(ep.path, "doctors") {
			return fmt.Sprint(sl.ID)
		}
		return doc
	}
	n := 0
	for _, ep := range endpoints {
		if ep.hasID {
			for _, id := range badIDs {
				c := call{method: ep.method, path: fmt.Sprintf(ep.path, id), token: tokenFor(ep), invalid: true}
				if ep.body {
					c.body = `{}`
				}
				a := e.do(c)
				if a.status < 400 || a.status >= 500 {
					t.Fatalf("%s %s: %d", c.method, c.path, a.status)
				}
				n++
			}
		}
		path := ep.path
		if ep.hasID {
			path = fmt.Sprintf(ep.path, validID(ep))
		}
		for _, q := range ep.queries {
			e.do(call{method: ep.method, path: path + "?" + q, token: tokenFor(ep), invalid: true}).expect(t, 400, booking.CodeInvalidRequest)
			n++
		}
		if ep.body {
			for _, b := range badBodies {
				a := e.do(call{method: ep.method, path: path, token: tokenFor(ep), body: b, invalid: true})
				if a.status != 400 && a.status != 413 {
					t.Fatalf("%s %s %q: %d %s", ep.method, path, b, a.status, a.body)
				}
				n++
			}
			// Wrong and missing Content-Type.
			for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=", "bogus"} {
				e.do(call{method: ep.method, path: path, token: tokenFor(ep), body: `{}`, header: map[string]string{"Content-Type": ct}, invalid: true}).
					expect(t, 400, booking.CodeInvalidRequest)
				n++
			}
		}
	}
	// Per-endpoint semantic nonsense with well-formed JSON.
	for _, c := range []call{
		post("/api/admin/departments", e.admin, `{"name":""}`),
		post("/api/admin/departments", e.admin, `{"name":"   "}`),
		post("/api/admin/departments", e.admin, `{"name":"`+strings.Repeat("n", 201)+`"}`),
		post("/api/admin/departments", e.admin, `{"name":"a\u0000b"}`),
		post("/api/admin/doctors", e.admin, `{"name":"X","departmentId":0,"timezone":"UTC"}`),
		post("/api/admin/doctors", e.admin, `{"name":"X","departmentId":1,"timezone":""}`),
		post("/api/admin/doctors", e.admin, `{"name":"X","departmentId":1,"timezone":"../../etc/passwd"}`),
		post("/api/admin/patients", e.admin, `{"name":"X","phone":"12"}`),
		post("/api/admin/patients", e.admin, `{"name":"X","email":"@"}`),
		post("/api/admin/patients", e.admin, `{"phone":"+4930123"}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[7],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1,1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"8:00","endTime":"12:00","slotMinutes":15,"capacity":1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"24:00","slotMinutes":15,"capacity":1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":0,"capacity":1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":0}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1,"fee":-1}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1,"horizonDays":100000}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":99999999}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1,"holdMinutes":2147483648}`),
		post("/api/admin/doctors/"+doc+"/schedules", e.admin, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":1,"holdMinutes":99999999}`),
		post("/api/admin/doctors/"+doc+"/slots/generate", e.admin, `{"from":"2026-03-02"}`),
		post("/api/admin/doctors/"+doc+"/slots/generate", e.admin, `{"from":"2026-03-02","to":"2028-03-02"}`),
		post("/api/admin/slots", e.admin, `{"doctorId":1,"durationMinutes":15,"capacity":1}`),
		post("/api/admin/slots", e.admin, `{"doctorId":1,"startAt":"2026-03-05T08:00:00Z","durationMinutes":0,"capacity":1}`),
		post("/api/admin/slots", e.admin, `{"doctorId":1,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":0}`),
		post("/api/admin/slots", e.admin, `{"doctorId":1,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":1,"opensAt":"2026-03-06T08:00:00Z"}`),
		post("/api/admin/slots", e.admin, `{"doctorId":1,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":1,"fee":-5}`),
		post("/api/admin/slots", e.admin, `{"doctorId":0,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":1}`),
		post("/api/admin/slots", e.admin, `{"doctorId":1,"startAt":"2026-03-05 08:00","durationMinutes":15,"capacity":1}`),
		{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", sl.ID), token: e.admin, body: `{}`},
		{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", sl.ID), token: e.admin, body: `{"capacity":0}`},
		{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", sl.ID), token: e.admin, body: `{"capacity":-1}`},
		{method: "PATCH", path: fmt.Sprintf("/api/admin/slots/%d", sl.ID), token: e.admin, body: `{"capacity":null,"status":null}`},
	} {
		c.invalid = true
		e.do(c).expect(t, 400, booking.CodeInvalidRequest)
		n++
	}
	// Unknown paths and methods: problem+json too.
	for _, c := range []call{
		{method: "GET", path: "/nope"},
		{method: "GET", path: "/api"},
		{method: "GET", path: "/api/doctors/1/slots/extra"},
		{method: "PUT", path: "/api/departments"},
		{method: "DELETE", path: "/api/doctors/1"},
		{method: "POST", path: "/healthz"},
		{method: "PATCH", path: "/api/appointments/1", token: patient()},
	} {
		c.invalid = true
		a := e.do(c)
		if a.status != 404 && a.status != 405 {
			t.Fatalf("%s %s: %d", c.method, c.path, a.status)
		}
		if a.status == 405 && a.header.Get("Allow") == "" {
			t.Fatalf("%s %s: 405 without Allow", c.method, c.path)
		}
		n++
	}
	if after := e.snapshot(); after != before {
		t.Fatalf("bad input changed the database:\n%s\n---\n%s", before, after)
	}
	t.Logf("%d bad requests, all 4xx problem+json", n)
}

// TestNumbersOutOfRange sends numbers beyond their documented range, on
// both stores: each is 400 invalid-request naming the field, and nothing
// is stored (PostgreSQL answered 500 for an int4 overflow, SQLite stored a
// hold of 190 years).
func TestNumbersOutOfRange(t *testing.T) {
	stores := map[string]func(t *testing.T) booking.Store{
		"sqlite": func(t *testing.T) booking.Store {
			ctx := context.Background()
			s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := s.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			return s
		},
		"postgres": func(t *testing.T) booking.Store {
			dsn := pgtest.DSN(t)
			ctx := context.Background()
			if err := postgres.Migrate(ctx, dsn); err != nil {
				t.Fatal(err)
			}
			s, err := postgres.Open(ctx, dsn, postgres.Options{Keys: pii.New()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) { testNumbersOutOfRange(t, open(t)) })
	}
}

func testNumbersOutOfRange(t *testing.T, st booking.Store) {
	ctx := context.Background()
	now := func() time.Time { return t0 }
	svc := service.NewService(st, service.Options{Now: now})
	signer := mustSigner(t)
	srv := httptest.NewServer(New(Config{Service: svc, Signer: signer, Now: now, Logger: discardLogger()}))
	t.Cleanup(srv.Close)
	admin, err := signer.Mint(auth.RoleAdmin, "1", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	dep, err := st.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := st.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Weber", DepartmentID: dep.ID, TimeZone: "Europe/Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	schedules := fmt.Sprintf("/api/admin/doctors/%d/schedules", doc.ID)
	sched := func(field, value string) string {
		return `{"weekdays":[1,2,3,4,5],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":2,"` + field + `":` + value + `}`
	}
	slot := func(field, value string) string {
		return fmt.Sprintf(`{"doctorId":%d,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":1,"%s":%s}`, doc.ID, field, value)
	}
	for _, c := range []struct{ method, path, body, field string }{
		{"POST", schedules, sched("holdMinutes", "2147483648"), "holdMinutes"},
		{"POST", schedules, sched("holdMinutes", "99999999"), "holdMinutes"},
		{"POST", schedules, sched("holdMinutes", "1441"), "holdMinutes"},
		{"POST", schedules, sched("horizonDays", "2147483648"), "horizonDays"},
		{"POST", schedules, sched("fee", "9223372036854775807"), "fee"},
		{"POST", schedules, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":2147483648,"capacity":2}`, "slotMinutes"},
		{"POST", schedules, `{"weekdays":[1],"startTime":"08:00","endTime":"12:00","slotMinutes":15,"capacity":2147483648}`, "capacity"},
		{"POST", "/api/admin/slots", slot("fee", "100000001"), "fee"},
		{"POST", "/api/admin/slots", fmt.Sprintf(`{"doctorId":%d,"startAt":"2026-03-05T08:00:00Z","durationMinutes":2147483648,"capacity":1}`, doc.ID), "durationMinutes"},
		{"POST", "/api/admin/slots", fmt.Sprintf(`{"doctorId":%d,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":2147483648}`, doc.ID), "capacity"},
		{"POST", "/api/admin/slots", `{"doctorId":9007199254740992,"startAt":"2026-03-05T08:00:00Z","durationMinutes":15,"capacity":1}`, "doctorId"},
		{"POST", "/api/admin/doctors", `{"name":"X","departmentId":9007199254740992,"timezone":"UTC"}`, "departmentId"},
		{"POST", "/api/admin/rooms", `{"name":"A","timezone":"UTC","building":"B","floor":2147483648,"beds":1}`, "floor"},
		{"POST", "/api/admin/rooms", `{"name":"A","timezone":"UTC","building":"B","floor":1,"beds":2147483648}`, "beds"},
		{"GET", "/api/doctors/9007199254740992", "", "id"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+admin)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p problemDetails
		_ = json.NewDecoder(res.Body).Decode(&p)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || p.Type != "/problems/invalid-request" || !strings.Contains(p.Detail, c.field) {
			t.Errorf("%s %s %s: %d %s %q, want 400 invalid-request naming %s", c.method, c.path, c.body, res.StatusCode, p.Type, p.Detail, c.field)
		}
	}
	ss, err := st.ListSchedules(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	sls, err := st.ListSlots(ctx, doc.ID, t0.Add(-24*time.Hour), t0.Add(400*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	docs, err := st.ListDoctors(ctx, 0, booking.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 0 || len(sls) != 0 || len(docs) != 1 {
		t.Fatalf("numbers out of range changed the database: %d schedules, %d slots, %d doctors", len(ss), len(sls), len(docs))
	}
}
