package edge

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkEdge is what every request pays in front of its handler with
// tracing off (no exporter): the proxy and request id handling.
func BenchmarkEdge(b *testing.B) {
	tr, err := SetupTracing(context.Background(), "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	p, _ := ParseProxies("10.0.0.0/8")
	h := tr.Handler(p.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	r := httptest.NewRequest("GET", "/api/doctors", nil)
	r.RemoteAddr = "10.1.2.3:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
}
