package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/demo"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/web"
)

// front is serve's whole handler chain over a SQLite file, wired as
// scripts/perf starts the server (bench endpoints, quiet access log, no
// public limit, no booking rate limit).
type front struct {
	h      http.Handler
	store  store
	signer *auth.Signer
}

func newFront(b testing.TB, args ...string) front { return newFrontWith(b, nil, args...) }

// newFrontWith is newFront with the Service's options changed by tune.
func newFrontWith(b testing.TB, tune func(*service.Options), args ...string) front {
	b.Helper()
	ctx := context.Background()
	tracing, err := edge.SetupTracing(ctx, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tracing.Shutdown(ctx) })
	var f serveFlags
	fs := newServeFlagSet(&f)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(append([]string{"--db", "sqlite:" + filepath.Join(b.TempDir(), "bench.db"),
		"--auth-secret", "bench-secret-bench-secret-0123456789abcdef",
		"--bench-endpoints", "--quiet-access-log", "--public-rate", "0", "--booking-rate", "1000000"}, args...)); err != nil {
		b.Fatal(err)
	}
	logger := slog.New(edge.LogHandler(slog.NewJSONHandler(io.Discard, nil)))
	st, err := f.db.open(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	signer, err := f.db.signer()
	if err != nil {
		b.Fatal(err)
	}
	m := metrics.New()
	f.lanes.Depth = 1
	opts := service.Options{
		Timeout: f.dbTimeout, Engine: f.engine, Lanes: f.lanes, Gates: service.GateOptions{FullTTL: time.Hour},
		Observer: m, BookingRate: f.bookingRate, BookingWindow: f.bookingPer,
	}
	if tune != nil {
		tune(&opts)
	}
	svc := service.NewService(st, opts)
	inter, err := newInterop(f.interop, svc, st, signer, "http://127.0.0.1:8080", logger)
	if err != nil {
		b.Fatal(err)
	}
	deliveries := svc.Deliveries(service.DeliveriesOptions{Notifier: &notify.Log{Logger: logger}, Observer: m, Logger: logger})
	h := frontDoor(&f, frontParts{svc: svc, store: st, signer: signer, deliveries: deliveries, logger: logger,
		metrics: m, dash: web.NewRecorder(nil), inter: inter, proxies: edge.Proxies{}, tracing: tracing, draining: func() bool { return false }})
	return front{h: h, store: st, signer: signer}
}

// sink is a ResponseWriter that keeps only the status, reused across
// requests as the server reuses its buffers: what is measured is slotd's
// work, not a recorder's.
type sink struct {
	h    http.Header
	code int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.code = code }
func (s *sink) Write(b []byte) (int, error) { return len(b), nil }

// serve runs one request through the chain and returns its status.
func (f front) serve(w *sink, base *http.Request, body []byte) int {
	clear(w.h)
	w.code = 200
	r := *base
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.h.ServeHTTP(w, &r)
	return w.code
}

func request(method, path string, header map[string]string) *http.Request {
	r, _ := http.NewRequest(method, "http://127.0.0.1:8080"+path, nil)
	r.RemoteAddr = "127.0.0.1:40000"
	r.RequestURI = path
	for k, v := range header {
		r.Header.Set(k, v)
	}
	return r
}

// BenchmarkFrontEcho is POST /bench/echo through every middleware: the
// ceiling scripts/perf compares the bookings with.
func BenchmarkFrontEcho(b *testing.B) {
	f := newFront(b)
	r := request("POST", "/bench/echo", map[string]string{"Content-Type": "application/json"})
	body := []byte(`{"slotId":12345}`)
	w := &sink{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		if code := f.serve(w, r, body); code != 200 {
			b.Fatalf("echo: %d", code)
		}
	}
}

// BenchmarkFrontBookRefused is the hot path's commonest request once a
// slot is full: a retry of a patient's booking, answered 409 from memory
// (the full gate and the recent keys) without the database, through the
// JWT check, the body reader and every middleware.
func BenchmarkFrontBookRefused(b *testing.B) {
	f := newFront(b)
	ctx := context.Background()
	sum, err := demo.Load(ctx, f.store, demo.Options{Doctors: 1, Days: 3, Patients: 2})
	if err != nil {
		b.Fatal(err)
	}
	docs, err := f.store.ListDoctors(ctx, 0, booking.Page{})
	if err != nil || len(docs) == 0 {
		b.Fatal(err, docs)
	}
	now := time.Now()
	slots, err := f.store.ListSlots(ctx, docs[0].ID, now.Add(36*time.Hour), now.Add(72*time.Hour))
	if err != nil || len(slots) == 0 {
		b.Fatal(err, slots)
	}
	body := []byte(fmt.Sprintf(`{"slotId":%d}`, slots[0].ID))
	w := &sink{h: http.Header{}}
	for i, want := range []int{201, 409} {
		tok, _ := f.signer.Mint(auth.RolePatient, fmt.Sprint(sum.FirstPatientID+int64(i)), time.Hour)
		r := request("POST", "/api/appointments", map[string]string{"Content-Type": "application/json",
			"Authorization": "Bearer " + tok, "Idempotency-Key": fmt.Sprintf("bench-%d", i)})
		if code := f.serve(w, r, body); code != want {
			b.Fatalf("setup booking %d: %d, want %d", i, code, want)
		}
		if want == 409 {
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if code := f.serve(w, r, body); code != 409 {
					b.Fatalf("refusal: %d", code)
				}
			}
		}
	}
}
