package httpapi

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// t0 is the tests' fixed clock: Monday 2 March 2026, 06:00 UTC (07:00 in
// Berlin, when booking opens).
var t0 = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

var testSecret = []byte("httpapi-test-secret-0123456789abcdef")

// clock is a settable clock shared by the Service and the API.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock { c := &clock{}; c.set(t); return c }
func (c *clock) Now() time.Time   { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) set(t time.Time)  { c.ns.Store(t.UnixNano()) }
func (c *clock) add(d time.Duration) {
	c.ns.Add(int64(d))
}

// syncBuffer collects log output from concurrent handlers.
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

// env is one test's API over its own SQLite file.
type env struct {
	t      *testing.T
	db     *sqlite.Store
	store  booking.Store // what the API uses: db, or a wrapper around it
	signer *auth.Signer
	clock  *clock
	srv    *httptest.Server
	logs   *syncBuffer
	router routers.Router

	admin string     // an admin token
	codes *sentCodes // the sign-in codes the Signin sent
	svc   *service.Service
}

type envOpt func(*envConfig)

type envConfig struct {
	wrap   func(booking.Store) booking.Store
	cfg    func(*Config)
	svc    func(*service.Options)
	signin func(*service.SigninOptions)
}

// withService changes the Service's options.
func withService(f func(*service.Options)) envOpt { return func(c *envConfig) { c.svc = f } }

// withSignin tunes the options of the env's Signin.
func withSignin(f func(*service.SigninOptions)) envOpt { return func(c *envConfig) { c.signin = f } }

func withStore(wrap func(booking.Store) booking.Store) envOpt {
	return func(c *envConfig) { c.wrap = wrap }
}

func withConfig(f func(*Config)) envOpt { return func(c *envConfig) { c.cfg = f } }

var (
	docOnce   sync.Once
	docRouter routers.Router
	docErr    error
)

// openAPIRouter loads the embedded document once and routes requests
// through it for validation.
func openAPIRouter(t *testing.T) routers.Router {
	t.Helper()
	docOnce.Do(func() {
		loader := openapi3.NewLoader()
		var doc *openapi3.T
		doc, docErr = loader.LoadFromData(openapiJSON)
		if docErr != nil {
			return
		}
		if docErr = doc.Validate(context.Background()); docErr != nil {
			return
		}
		docRouter, docErr = gorillamux.NewRouter(doc)
	})
	if docErr != nil {
		t.Fatalf("openapi.json: %v", docErr)
	}
	return docRouter
}

func newEnv(t *testing.T, opts ...envOpt) *env {
	t.Helper()
	var ec envConfig
	for _, o := range opts {
		o(&ec)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "slotd.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	signer, err := auth.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, store: db, signer: signer, clock: newClock(t0), logs: &syncBuffer{}, router: openAPIRouter(t), codes: &sentCodes{}}
	if ec.wrap != nil {
		e.store = ec.wrap(db)
	}
	// The timeout bounds a booking's whole wait: generous, as these tests
	// are about answers and -race on busy cores makes a rush of hundreds slow.
	so := service.Options{Now: e.clock.Now, Timeout: 10 * time.Second,
		CheckInCodes: booking.NewCheckInCodes(signer.DeriveKey(booking.CheckInKeyPurpose)),
		WaitingRoom:  service.WaitingRoomOptions{Tokens: booking.NewAdmissionTokens(signer.DeriveKey(booking.AdmissionKeyPurpose))}}
	if ec.svc != nil {
		ec.svc(&so)
	}
	svc := service.NewService(e.store, so)
	e.svc = svc
	cfg := Config{
		Service: svc, Store: e.store, Signer: signer,
		Logger: slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    e.clock.Now,
	}
	sio := service.SigninOptions{Accounts: db, Notifier: e.codes, PhoneKey: signer.DeriveKey(service.SigninPhoneKeyPurpose),
		CodeKey: signer.DeriveKey(service.SigninCodeKeyPurpose), Logger: cfg.Logger}
	if ec.signin != nil {
		ec.signin(&sio)
	}
	cfg.Signin = svc.NewSignin(sio)
	// Twilio's status callbacks are served, verified with this token.
	cfg.Deliveries = svc.Deliveries(service.DeliveriesOptions{Notifier: e.codes, Channels: []string{"sms"}, Logger: cfg.Logger})
	cfg.TwilioAuthToken, cfg.TwilioCallbackURL = twilioTestToken, twilioTestURL
	if ec.cfg != nil {
		ec.cfg(&cfg)
	}
	e.srv = httptest.NewServer(New(cfg))
	t.Cleanup(e.srv.Close)
	e.admin = e.token(auth.RoleAdmin, "1")
	return e
}

func (e *env) token(role auth.Role, sub string) string {
	e.t.Helper()
	tok, err := e.signer.Mint(role, sub, time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

func (e *env) patientToken(id int64) string { return e.token(auth.RolePatient, fmt.Sprint(id)) }

// call is one HTTP request of a test.
type call struct {
	method, path string
	token        string
	// body is sent as is when a string or []byte, else JSON-encoded.
	body   any
	header map[string]string
	// invalid marks a request that deliberately breaks the OpenAPI
	// document; only its answer is validated.
	invalid bool
}

// answer is what the server said.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends c, validates request (unless c.invalid) and answer against the
// OpenAPI document, and checks the answer's universal rules: every 4xx/5xx
// is problem+json whose type and status agree with the problem table, and
// no answer is a 5xx unless want5xx.
func (e *env) do(c call) answer {
	e.t.Helper()
	return e.doAllow(c, false)
}

func (e *env) doAllow(c call, want5xx bool) answer {
	e.t.Helper()
	var raw []byte
	hasBody := c.body != nil
	switch b := c.body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			e.t.Fatal(err)
		}
	}
	newReq := func() *http.Request {
		var rd io.Reader
		if hasBody {
			rd = bytes.NewReader(raw)
		}
		req, err := http.NewRequest(c.method, e.srv.URL+c.path, rd)
		if err != nil {
			e.t.Fatal(err)
		}
		if hasBody {
			req.Header.Set("Content-Type", "application/json")
		}
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		for k, v := range c.header {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		return req
	}

	vreq := newReq()
	route, params, routeErr := e.router.FindRoute(vreq)
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	reqInput := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts}
	if !c.invalid {
		if routeErr != nil {
			e.t.Fatalf("%s %s: not in openapi.json: %v", c.method, c.path, routeErr)
		}
		if err := openapi3filter.ValidateRequest(context.Background(), reqInput); err != nil {
			e.t.Fatalf("%s %s: request does not match openapi.json: %v", c.method, c.path, err)
		}
	}

	resp, err := http.DefaultClient.Do(newReq())
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: body}

	if routeErr == nil {
		reqInput.Request = newReq()
		if err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: reqInput, Status: a.status, Header: a.header,
			Body: io.NopCloser(bytes.NewReader(body)), Options: opts,
		}); err != nil {
			e.t.Fatalf("%s %s: answer %d does not match openapi.json: %v\n%s", c.method, c.path, a.status, err, body)
		}
	}
	if a.status >= 500 && !want5xx {
		e.t.Fatalf("%s %s: answered %d: %s", c.method, c.path, a.status, body)
	}
	if a.status >= 400 {
		if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
			e.t.Fatalf("%s %s: %d with Content-Type %q", c.method, c.path, a.status, ct)
		}
		p := a.problem(e.t)
		if p.Status != a.status {
			e.t.Fatalf("%s %s: problem status %d on a %d answer", c.method, c.path, p.Status, a.status)
		}
		code := booking.Code(strings.TrimPrefix(p.Type, "/problems/"))
		spec, ok := problem.Of(code), problem.Known(code)
		if !ok || !strings.HasPrefix(p.Type, "/problems/") {
			e.t.Fatalf("%s %s: unknown problem type %q", c.method, c.path, p.Type)
		}
		// Every answer's status and title are the table's (titles are stable per type).
		if spec.Status != a.status || spec.Title != p.Title {
			e.t.Fatalf("%s %s: %s answered with %d %q, table says %d %q", c.method, c.path, code, a.status, p.Title, spec.Status, spec.Title)
		}
		// Every problem names its occurrence by the request id it was answered under.
		if id := a.header.Get("X-Request-Id"); id == "" || p.Instance != "urn:slotd:request:"+id {
			e.t.Fatalf("%s %s: instance %q, X-Request-Id %q", c.method, c.path, p.Instance, id)
		}
		for _, fe := range p.Errors {
			if (fe.Pointer == "") == (fe.Parameter == "") || fe.Detail == "" || (fe.Pointer != "" && !strings.HasPrefix(fe.Pointer, "/")) {
				e.t.Fatalf("%s %s: errors item %+v", c.method, c.path, fe)
			}
		}
		if (a.status == 503 || a.status == 429) && a.header.Get("Retry-After") == "" {
			e.t.Fatalf("%s %s: %d without Retry-After", c.method, c.path, a.status)
		}
	}
	return a
}

func (a answer) problem(t *testing.T) problemDetails {
	t.Helper()
	var p problemDetails
	dec := json.NewDecoder(bytes.NewReader(a.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("problem body %q: %v", a.body, err)
	}
	return p
}

// code is the problem code of an error answer.
func (a answer) code(t *testing.T) booking.Code {
	t.Helper()
	return booking.Code(strings.TrimPrefix(a.problem(t).Type, "/problems/"))
}

func (a answer) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("answer body %q: %v", a.body, err)
	}
}

// expect fails unless the answer has the status (and, for errors, the code).
func (a answer) expect(t *testing.T, status int, code ...booking.Code) answer {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if len(code) > 0 {
		if got := a.code(t); got != code[0] {
			t.Fatalf("code %s, want %s: %s", got, code[0], a.body)
		}
	}
	return a
}

// fixture data made through the store directly (the admin endpoints are
// tested on their own).
type fixture struct {
	dept    booking.Department
	doctor  booking.Doctor // Europe/Berlin
	doctor2 booking.Doctor // America/New_York
	next    int
}

func (e *env) fixture() *fixture {
	e.t.Helper()
	ctx := context.Background()
	f := &fixture{}
	var err error
	if f.dept, err = e.db.CreateDepartment(ctx, booking.Department{Name: "Cardiology"}); err != nil {
		e.t.Fatal(err)
	}
	if f.doctor, err = e.db.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Weber", DepartmentID: f.dept.ID, TimeZone: "Europe/Berlin"}); err != nil {
		e.t.Fatal(err)
	}
	if f.doctor2, err = e.db.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Smith", DepartmentID: f.dept.ID, TimeZone: "America/New_York"}); err != nil {
		e.t.Fatal(err)
	}
	return f
}

// slot makes an open slot of the doctor, 30 minutes, starting at a fresh
// hour on the next day, opened an hour before t0.
func (e *env) slot(f *fixture, capacity int, mod ...func(*booking.Slot)) booking.Slot {
	e.t.Helper()
	f.next++
	start := t0.Add(time.Duration(24+f.next) * time.Hour)
	sl := booking.Slot{
		DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(30 * time.Minute),
		Capacity: capacity, OpensAt: t0.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900,
	}
	for _, m := range mod {
		m(&sl)
	}
	sl, err := e.db.CreateSlot(context.Background(), sl)
	if err != nil {
		e.t.Fatal(err)
	}
	return sl
}

// phones numbers the test patients: a phone is one patient's.
var phones atomic.Int64

func (e *env) patient() booking.Patient {
	e.t.Helper()
	p, err := e.db.CreatePatient(context.Background(), booking.Patient{Name: "Anna", Phone: fmt.Sprintf("+4930%07d", phones.Add(1)), Email: "anna@example.org"})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// snapshot renders every row of every table, to prove that a refused
// request changed nothing.
func (e *env) snapshot() string {
	e.t.Helper()
	db := e.db.DB()
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		e.t.Fatal(err)
	}
	var tables []string
	noRowid := map[string]bool{}
	for rows.Next() {
		var n, ddl string
		if err := rows.Scan(&n, &ddl); err != nil {
			e.t.Fatal(err)
		}
		tables = append(tables, n)
		noRowid[n] = strings.Contains(strings.ToUpper(ddl), "WITHOUT ROWID")
	}
	rows.Close()
	var sb strings.Builder
	for _, tb := range tables {
		fmt.Fprintf(&sb, "== %s\n", tb)
		// A WITHOUT ROWID table (round_quotas) has no rowid; a scan of it
		// comes in primary-key order, as deterministic as rowid order.
		order := ` ORDER BY rowid`
		if noRowid[tb] {
			order = ""
		}
		dumpRows(e.t, db, &sb, `SELECT * FROM "`+tb+`"`+order)
	}
	return sb.String()
}

func dumpRows(t *testing.T, db *sql.DB, sb *strings.Builder, q string) {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(sb, vals...)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

func mustSigner(t *testing.T) *auth.Signer {
	t.Helper()
	s, err := auth.NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// items decodes the items of a list page into v and returns the page's
// next cursor ("" on the last page).
func (a answer) items(t *testing.T, v any) string {
	t.Helper()
	var page struct {
		Items json.RawMessage `json:"items"`
		Next  *string         `json:"next"`
	}
	if err := json.Unmarshal(a.body, &page); err != nil || page.Items == nil {
		t.Fatalf("answer body %q is not a page: %v", a.body, err)
	}
	if err := json.Unmarshal(page.Items, v); err != nil {
		t.Fatalf("page items %q: %v", page.Items, err)
	}
	if page.Next == nil {
		return ""
	}
	return *page.Next
}

// auditPage is an audit log page as a client reads it.
type auditPage = listPage[auditView]
