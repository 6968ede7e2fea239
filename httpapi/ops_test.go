package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// The problem type pages are HTML; the validator reads them as a string.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(body)
		return string(b), err
	})
}

// Every problem type URI answers: HTML for a browser, JSON by Accept, with
// the table's title and status; an unknown code is a 404 problem.
func TestProblemTypesAnswer(t *testing.T) {
	e := newEnv(t)
	for _, c := range booking.Codes() {
		a := e.do(call{method: "GET", path: "/problems/" + string(c), header: map[string]string{"Accept": "application/json"}}).expect(t, 200)
		var doc problemType
		if err := json.Unmarshal(a.body, &doc); err != nil {
			t.Fatal(err)
		}
		spec := problem.Of(c)
		if doc.Type != "/problems/"+string(c) || doc.Title != spec.Title || doc.Status != spec.Status || doc.Description == "" {
			t.Fatalf("%s: %+v", c, doc)
		}
	}
	a := e.do(call{method: "GET", path: "/problems/slot-full", header: map[string]string{"Accept": "text/html,application/xhtml+xml,application/json;q=0.9"}}).expect(t, 200)
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(a.body), "Slot is full") {
		t.Fatalf("browser got %q: %s", ct, a.body)
	}
	e.do(call{method: "GET", path: "/problems/no-such-code"}).expect(t, 404, booking.CodeNotFound)
}

// The mux's 405 is its own problem type with the table's title.
func TestMethodNotAllowedIsItsOwnType(t *testing.T) {
	e := newEnv(t)
	a := e.do(call{method: "PUT", path: "/api/departments", invalid: true}).expect(t, 405, booking.CodeMethodNotAllowed)
	if p := a.problem(t); p.Title != "Method not allowed" || a.header.Get("Allow") == "" {
		t.Fatalf("405: %+v %v", p, a.header)
	}
}

// While draining, /readyz answers 503 so the load balancer stops sending.
func TestReadyzDrains(t *testing.T) {
	var draining atomic.Bool
	e := newEnv(t, withConfig(func(c *Config) { c.Draining = draining.Load }))
	e.do(call{method: "GET", path: "/readyz"}).expect(t, 200)
	draining.Store(true)
	e.doAllow(call{method: "GET", path: "/readyz"}, true).expect(t, 503, booking.CodeUnavailable)
	e.do(call{method: "GET", path: "/healthz"}).expect(t, 200)
}

// Unauthenticated callers share a budget per address; a caller with a
// token and the probes are not counted.
func TestPublicRequestsArePerAddressLimited(t *testing.T) {
	e := newEnv(t, withConfig(func(c *Config) { c.PublicPerMinute = 3 }))
	for i := 0; i < 3; i++ {
		e.do(call{method: "GET", path: "/api/departments"}).expect(t, 200)
	}
	a := e.do(call{method: "GET", path: "/api/departments"}).expect(t, 429, booking.CodeRateLimited)
	if a.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	e.do(call{method: "GET", path: "/api/departments", token: e.patientToken(1)}).expect(t, 200)
	e.do(call{method: "GET", path: "/readyz"}).expect(t, 200)
	e.do(call{method: "GET", path: "/problems/slot-full"}).expect(t, 200)
}
