// Package metrics exposes slotd's Prometheus metrics and keeps the last
// minute of booking outcomes for the staff dashboard. It implements
// booking.Observer; cmd/slotd wires it to the Service and the stores.
package metrics

import (
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is the registry and the recorders of one process.
type Metrics struct {
	reg       *prometheus.Registry
	bookings  *prometheus.CounterVec
	booking   *prometheus.HistogramVec
	batchSize prometheus.Histogram
	decision  prometheus.Histogram
	requests  *prometheus.HistogramVec

	window *window
}

// New returns a registry with the process and Go collectors and slotd's own
// metrics.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), window: newWindow(60)}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.bookings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_bookings_total",
		Help: "Booking attempts by outcome (created, replayed or a problem code) and by whether the in-memory gates answered them.",
	}, []string{"outcome", "gated"})
	m.booking = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "slotd_booking_seconds",
		Help:    "Time to answer a booking attempt inside the service, by whether the gates answered it.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
	}, []string{"gated"})
	m.batchSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "slotd_booking_batch_size",
		Help:    "Booking requests decided together in one database transaction.",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
	})
	m.decision = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "slotd_booking_decision_seconds",
		Help:    "Duration of one booking decision transaction (a batch).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
	})
	m.requests = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "slotd_http_request_seconds",
		Help:    "HTTP requests by route pattern and status code.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
	}, []string{"route", "code"})
	m.reg.MustRegister(m.bookings, m.booking, m.batchSize, m.decision, m.requests)
	return m
}

// Booked records one booking attempt (booking.Observer).
func (m *Metrics) Booked(outcome string, gated bool, took time.Duration) {
	g := strconv.FormatBool(gated)
	m.bookings.WithLabelValues(outcome, g).Inc()
	m.booking.WithLabelValues(g).Observe(took.Seconds())
	m.window.add(time.Now(), outcome)
}

// Batch records one decision transaction (booking.Observer).
func (m *Metrics) Batch(size int, took time.Duration) {
	m.batchSize.Observe(float64(size))
	m.decision.Observe(took.Seconds())
}

// Request records one HTTP request.
func (m *Metrics) Request(route string, code int, took time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Observe(took.Seconds())
}

// GaugeFunc registers a gauge read from fn at each scrape (lane queue depth,
// database pool usage).
func (m *Metrics) GaugeFunc(name, help string, fn func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Second is one second of booking outcomes, for the dashboard.
type Second struct {
	At       time.Time
	Outcomes map[string]int
}

// Total is the number of attempts in the second.
func (s Second) Total() int {
	n := 0
	for _, v := range s.Outcomes {
		n += v
	}
	return n
}

// Recent returns the last n seconds of booking outcomes, oldest first,
// including seconds without any.
func (m *Metrics) Recent(n int) []Second { return m.window.recent(time.Now(), n) }

// Outcomes returns the outcome names seen in the window, sorted.
func (m *Metrics) Outcomes() []string {
	seen := map[string]bool{}
	for _, s := range m.window.recent(time.Now(), m.window.size) {
		for k := range s.Outcomes {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// window is a ring of per-second outcome counts.
type window struct {
	mu   sync.Mutex
	size int
	secs []Second
}

func newWindow(size int) *window { return &window{size: size, secs: make([]Second, size)} }

func (w *window) add(now time.Time, outcome string) {
	sec := now.Truncate(time.Second)
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &w.secs[sec.Unix()%int64(w.size)]
	if !s.At.Equal(sec) {
		*s = Second{At: sec, Outcomes: map[string]int{}}
	}
	s.Outcomes[outcome]++
}

func (w *window) recent(now time.Time, n int) []Second {
	if n > w.size {
		n = w.size
	}
	end := now.Truncate(time.Second)
	out := make([]Second, 0, n)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := n - 1; i >= 0; i-- {
		at := end.Add(-time.Duration(i) * time.Second)
		s := w.secs[at.Unix()%int64(w.size)]
		c := Second{At: at, Outcomes: map[string]int{}}
		if s.At.Equal(at) {
			for k, v := range s.Outcomes {
				c.Outcomes[k] = v
			}
		}
		out = append(out, c)
	}
	return out
}
