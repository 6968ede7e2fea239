package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// TestValidatorCatchesDrift proves the OpenAPI check in env.do has teeth:
// an answer with an undocumented member or status is refused.
func TestValidatorCatchesDrift(t *testing.T) {
	router := openAPIRouter(t)
	req := httptest.NewRequest("GET", "/api/departments", nil)
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Fatal(err)
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	check := func(status int, ct, body string) error {
		h := http.Header{"Content-Type": {ct}}
		return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
			Status:                 status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Options: opts,
		})
	}
	if err := check(200, "application/json", `{"items":[{"id":1,"name":"a","siteId":1,"createdAt":"2026-03-02T06:00:00Z"}],"next":null}`); err != nil {
		t.Fatalf("a good answer was refused: %v", err)
	}
	if check(200, "application/json", `{"items":[{"id":1,"name":"a","siteId":1,"createdAt":"2026-03-02T06:00:00Z","secret":1}],"next":null}`) == nil {
		t.Fatal("an undocumented member passed")
	}
	if check(200, "application/json", `[{"id":"1","name":"a","createdAt":"2026-03-02T06:00:00Z"}]`) == nil {
		t.Fatal("a wrong type passed")
	}
	// A problem admits extension members (RFC 9457 §3.2), but its own
	// members keep their types.
	if err := check(400, "application/problem+json", `{"type":"/problems/invalid-request","title":"x","status":400,"extra":1}`); err != nil {
		t.Fatalf("a problem with an extension member was refused: %v", err)
	}
	if check(400, "application/problem+json", `{"type":"/problems/invalid-request","title":"x","status":400,"slotId":"7"}`) == nil {
		t.Fatal("a problem member of the wrong type passed")
	}
}

// panicStore panics where the departments are listed.
type panicStore struct{ booking.Store }

func (panicStore) ListDepartmentsBy(context.Context, booking.DepartmentFilter, booking.Page) ([]booking.Department, error) {
	panic("boom")
}

func TestPanicIsRecovered(t *testing.T) {
	e := newEnv(t, withStore(func(s booking.Store) booking.Store { return panicStore{s} }))
	a := e.doAllow(call{method: "GET", path: "/api/departments"}, true).expect(t, 500, booking.CodeInternal)
	if strings.Contains(string(a.body), "boom") {
		t.Fatalf("panic value leaked: %s", a.body)
	}
	if !strings.Contains(e.logs.String(), "boom") {
		t.Fatal("panic not logged")
	}
	// The server keeps serving.
	e.do(call{method: "GET", path: "/healthz"}).expect(t, 200)
}

func TestLogsCarryNoSecrets(t *testing.T) {
	e := newEnv(t)
	f := e.fixture()
	sl := e.slot(f, 1)
	phone, email := "+49 170 5550123", "secret.person@example.org"
	a := e.do(call{method: "POST", path: "/api/admin/patients", token: e.admin, body: map[string]any{"name": "Person", "phone": phone, "email": email},
		header: map[string]string{"X-Request-Id": "req-abc-123"}}).expect(t, 201)
	if a.header.Get("X-Request-Id") != "req-abc-123" {
		t.Fatalf("request id %q", a.header.Get("X-Request-Id"))
	}
	var p booking.Patient
	a.decode(t, &p)
	tok := e.patientToken(p.ID)
	e.do(book(tok, "my-key", slotBody(sl.ID))).expect(t, 201)
	e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Person", "phone": "not a phone " + phone})).expect(t, 400)
	e.do(post("/api/admin/patients", e.admin, map[string]any{"name": "Person", "email": "x " + email})).expect(t, 400)

	logs := e.logs.String()
	for _, secret := range []string{e.admin, tok, phone, email, "Bearer", "my-key", "5550123"} {
		if strings.Contains(logs, secret) {
			t.Fatalf("log contains %q:\n%s", secret, logs)
		}
	}
	// One line per request with method, route pattern, status, duration, id.
	found := false
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "http" && m["requestId"] == "req-abc-123" {
			found = true
			if m["method"] != "POST" || m["route"] != "POST /api/admin/patients" || m["status"] != float64(201) || m["duration"] == nil {
				t.Fatalf("log line %v", m)
			}
		}
	}
	if !found {
		t.Fatalf("no request line:\n%s", logs)
	}
}

func TestRequestIDIsSanitised(t *testing.T) {
	e := newEnv(t)
	a := e.do(call{method: "GET", path: "/healthz", header: map[string]string{"X-Request-Id": strings.Repeat("x", 100)}})
	if id := a.header.Get("X-Request-Id"); len(id) != 16 {
		t.Fatalf("request id %q", id)
	}
}

// The RateLimit headers state the shared limiter's decision.
func TestRateLimitHeaders(t *testing.T) {
	l := service.NewRateLimiter(5, 10*time.Second, 100)
	for i := 0; i < 5; i++ {
		l.Allow(1, t0)
	}
	d := l.Allow(1, t0)
	h := http.Header{}
	setRateHeaders(h, d)
	if h.Get("RateLimit-Policy") != `"booking";q=5;w=10` || h.Get("RateLimit") != `"booking";r=0;t=10` {
		t.Fatalf("%v", h)
	}
}

func TestMaxBodyConfig(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.MaxBodyBytes = 64 }))
	body := bytes.Repeat([]byte("a"), 100)
	e.do(call{method: "POST", path: "/api/admin/departments", token: e.admin, body: `{"name":"` + string(body) + `"}`, invalid: true}).
		expect(t, 413, booking.CodePayloadTooLarge)
}
