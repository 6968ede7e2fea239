package edge

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// seen serves through p and reports what the handler saw.
func seen(t *testing.T, p Proxies, remote string, h http.Header) (addr string, secure bool, rec *httptest.ResponseRecorder) {
	t.Helper()
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = remote
	for k, v := range h {
		r.Header[k] = v
	}
	rec = httptest.NewRecorder()
	p.Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		addr, secure = ClientAddr(r), Secure(r)
	})).ServeHTTP(rec, r)
	return addr, secure, rec
}

func TestForwardedHeadersCountOnlyFromTrustedProxies(t *testing.T) {
	p, err := ParseProxies("10.0.0.0/8, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	fwd := http.Header{"X-Forwarded-For": {"203.0.113.9, 10.1.1.1"}, "X-Forwarded-Proto": {"https"}}
	cases := []struct {
		name, remote string
		h            http.Header
		addr         string
		secure       bool
	}{
		{"direct client forging headers", "198.51.100.4:5000", fwd, "198.51.100.4", false},
		{"through two trusted proxies", "10.2.3.4:80", fwd, "203.0.113.9", true},
		{"trusted single address", "192.0.2.7:80", http.Header{"X-Forwarded-For": {"203.0.113.1"}}, "203.0.113.1", false},
		{"client-written left part ignored", "10.2.3.4:80", http.Header{"X-Forwarded-For": {"1.1.1.1", "203.0.113.9"}}, "203.0.113.9", false},
		{"garbage stops at the proxy", "10.2.3.4:80", http.Header{"X-Forwarded-For": {"not-an-ip"}}, "10.2.3.4", false},
		{"no proxy configured", "10.2.3.4:80", fwd, "10.2.3.4", true},
	}
	for _, c := range cases {
		pp := p
		if c.name == "no proxy configured" {
			pp, c.secure = Proxies{}, false
		}
		addr, secure, rec := seen(t, pp, c.remote, c.h)
		if addr != c.addr || secure != c.secure {
			t.Errorf("%s: client %q secure %v, want %q %v", c.name, addr, secure, c.addr, c.secure)
		}
		if hsts := rec.Header().Get("Strict-Transport-Security"); (hsts != "") != c.secure {
			t.Errorf("%s: HSTS %q with secure %v", c.name, hsts, c.secure)
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: no request id", c.name)
		}
	}
	if _, err := ParseProxies("10.0.0.0/33"); err == nil {
		t.Error("a bad CIDR was accepted")
	}
}

func TestRequestIDKeepsAGoodOneOnly(t *testing.T) {
	for id, keep := range map[string]bool{"abc-123": true, "has space": false, strings.Repeat("x", 65): false} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-Request-Id", id)
		rec := httptest.NewRecorder()
		got := RequestID(WithRequestID(rec, r).Context())
		if (got == id) != keep || got == "" || rec.Header().Get("X-Request-Id") != got {
			t.Errorf("%q: got %q (keep %v)", id, got, keep)
		}
	}
}

func TestCORSAllowlistAndPreflight(t *testing.T) {
	called := 0
	h := CORS([]string{"https://app.example/"}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { called++ }))
	do := func(method, origin string, pre bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/api/doctors", nil)
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if pre {
			r.Header.Set("Access-Control-Request-Method", "POST")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec
	}
	rec := do("OPTIONS", "https://app.example", true)
	if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(rec.Header().Get("Access-Control-Allow-Headers"), "Idempotency-Key") || called != 0 {
		t.Fatalf("preflight: %d %v (handler called %d)", rec.Code, rec.Header(), called)
	}
	if rec := do("GET", "https://app.example", false); rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" || called != 1 {
		t.Fatalf("simple request: %v", rec.Header())
	}
	if rec := do("OPTIONS", "https://evil.example", true); rec.Header().Get("Access-Control-Allow-Origin") != "" || called != 2 {
		t.Fatalf("another origin got CORS: %v", rec.Header())
	}
}

func TestLimitsPerKeyAndInAll(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	l := NewKeyLimiter(2, time.Minute)
	for i, want := range []bool{true, true, false} {
		if ok, _ := l.Allow("a", now); ok != want {
			t.Fatalf("a #%d: %v", i, ok)
		}
	}
	if ok, _ := l.Allow("b", now); !ok {
		t.Fatal("another key was refused")
	}
	if ok, _ := l.Allow("a", now.Add(30*time.Second)); !ok {
		t.Fatal("a did not refill")
	}
	b := NewBudget(3, time.Minute)
	for i := 0; i < 3; i++ {
		if ok, _ := b.Allow(now); !ok {
			t.Fatalf("budget #%d refused", i)
		}
	}
	if ok, wait := b.Allow(now); ok || wait <= 0 {
		t.Fatalf("budget over: %v %v", ok, wait)
	}
	// Left tells without spending.
	if ok, wait := b.Left(now); ok || wait != 20*time.Second {
		t.Fatalf("left of a spent budget: %v %v, want 20s", ok, wait)
	}
	later := now.Add(20 * time.Second)
	for i := 0; i < 3; i++ {
		if ok, _ := b.Left(later); !ok {
			t.Fatal("a refilled budget is not left")
		}
	}
	if ok, _ := b.Allow(later); !ok {
		t.Fatal("Left spent the budget")
	}
}

// A caller's traceparent is honoured: the server span continues its trace,
// the in-memory exporter receives it, and a log line written while serving
// carries the trace and request ids.
func TestTracingHonoursTraceparentAndStampsLogs(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tr, err := SetupTracing(context.Background(), "test", exp)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil)))
	h := tr.Handler(Proxies{}.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, span := otel.Tracer("t").Start(r.Context(), "inner")
		span.End()
		log.InfoContext(r.Context(), "served")
	})))
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := httptest.NewRequest("GET", "/api/doctors", nil)
	r.Header.Set("traceparent", "00-"+tid+"-00f067aa0ba902b7-01")
	r.Header.Set("X-Request-Id", "req-1")
	h.ServeHTTP(httptest.NewRecorder(), r)

	spans := exp.GetSpans()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	for _, s := range spans {
		if s.SpanContext.TraceID().String() != tid {
			t.Fatalf("span %s in trace %s, not the caller's", s.Name, s.SpanContext.TraceID())
		}
	}
	if spans[1].SpanKind != trace.SpanKindServer || spans[1].Parent.SpanID().String() != "00f067aa0ba902b7" {
		t.Fatalf("server span %+v", spans[1])
	}
	line := buf.String()
	if !strings.Contains(line, `"traceId":"`+tid+`"`) || !strings.Contains(line, `"requestId":"req-1"`) {
		t.Fatalf("log line without its ids: %s", line)
	}
}

// Without an exporter nothing makes spans: the provider is a no-op and the
// handler is not otelhttp's, yet a caller's traceparent still reaches the
// log lines, and a request without one logs no trace id.
func TestUntracedKeepsTheCallersTraceInLogs(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tr, err := SetupTracing(context.Background(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil)))
	recording := false
	h := tr.Handler(Proxies{}.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, span := otel.Tracer("t").Start(r.Context(), "inner")
		recording = recording || span.IsRecording() || trace.SpanFromContext(r.Context()).IsRecording()
		span.End()
		log.InfoContext(r.Context(), "served")
	})))
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := httptest.NewRequest("GET", "/api/doctors", nil)
	r.Header.Set("traceparent", "00-"+tid+"-00f067aa0ba902b7-01")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if !strings.Contains(buf.String(), `"traceId":"`+tid+`"`) || !strings.Contains(buf.String(), `"requestId":"`) {
		t.Fatalf("log line without the caller's trace: %s", buf.String())
	}
	buf.Reset()
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/doctors", nil))
	if strings.Contains(buf.String(), "traceId") {
		t.Fatalf("an untraced request logged a trace id: %s", buf.String())
	}
	if recording {
		t.Fatal("a span was recorded with tracing off")
	}
}

// TestClientAddrKeysIPv6ByItsNetwork: an IPv6 client is its /64, an IPv4
// one (also written as IPv4-mapped IPv6) its address.
func TestClientAddrKeysIPv6ByItsNetwork(t *testing.T) {
	for remote, want := range map[string]string{
		"[2001:db8:1:2::1]:443":          "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:1:2:3]:5000": "2001:db8:1:2::/64",
		"[2001:db8:1:3::1]:443":          "2001:db8:1:3::/64",
		"[::ffff:203.0.113.9]:80":        "203.0.113.9",
		"203.0.113.9:80":                 "203.0.113.9",
		"not an address":                 "",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		if got := ClientAddr(r); got != want {
			t.Errorf("ClientAddr(%q) = %q, want %q", remote, got, want)
		}
	}
}

// TestAddrLimiterSharesABucketPerNetwork: two addresses of one /64 spend
// one bucket, another /64 and an IPv4 client have their own; past the
// limit deny answers with the wait, until the clock refills the bucket.
func TestAddrLimiterSharesABucketPerNetwork(t *testing.T) {
	now := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	l := NewAddrLimiter(2, time.Minute, func() time.Time { return now })
	var waits []time.Duration
	h := l.Limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }),
		func(r *http.Request) bool { return r.URL.Path != "/free" },
		func(w http.ResponseWriter, _ *http.Request, wait time.Duration) {
			waits = append(waits, wait)
			w.WriteHeader(http.StatusTooManyRequests)
		})
	do := func(remote, path string) int {
		r := httptest.NewRequest("GET", path, nil)
		r.RemoteAddr = remote
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		return rec.Code
	}
	a1, a2, other, v4 := "[2001:db8:1:2::1]:1", "[2001:db8:1:2:abcd::7]:2", "[2001:db8:1:3::1]:1", "198.51.100.4:1"
	for i, c := range []struct {
		remote, path string
		want         int
	}{
		{a1, "/", 204}, {a2, "/", 204}, {a1, "/", 429}, {a2, "/", 429},
		{a2, "/free", 204}, // not counted
		{other, "/", 204}, {other, "/", 204}, {other, "/", 429},
		{v4, "/", 204},
	} {
		if got := do(c.remote, c.path); got != c.want {
			t.Fatalf("request %d from %s: %d, want %d", i, c.remote, got, c.want)
		}
	}
	if len(waits) != 3 || waits[0] <= 0 || waits[0] > 30*time.Second {
		t.Fatalf("waits %v", waits)
	}
	now = now.Add(30 * time.Second)
	if got := do(a2, "/"); got != 204 {
		t.Fatalf("after the refill: %d", got)
	}
	var none *AddrLimiter
	if NewAddrLimiter(0, time.Minute, nil) != nil {
		t.Fatal("a limit of 0 is no limiter")
	}
	if ok, _ := none.Allow(httptest.NewRequest("GET", "/", nil)); !ok {
		t.Fatal("no limiter refuses")
	}
}
