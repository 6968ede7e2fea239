// Package metrics exposes slotd's Prometheus metrics. It implements
// booking.Observer; cmd/slotd wires it to the Service and the stores.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/slotd/slotd/booking"
)

// Metrics is the registry and the recorders of one process.
type Metrics struct {
	reg       *prometheus.Registry
	bookings  *prometheus.CounterVec
	booking   *prometheus.HistogramVec
	batchSize prometheus.Histogram
	decision  prometheus.Histogram
	requests  *prometheus.HistogramVec
	reconcile *prometheus.GaugeVec
	reconAt   prometheus.Gauge
	offers    *prometheus.CounterVec
	reminders *prometheus.CounterVec
}

// New returns a registry with the process and Go collectors and slotd's own
// metrics.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
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
	m.reconcile = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "slotd_reconciliation_issues",
		Help: "What the last periodic reconciliation found, by kind (counter_mismatch, duplicate_active and round_quota_mismatch break an invariant; stale_hold, refund_needed and payment_conflict are work to do).",
	}, []string{"kind"})
	m.reconAt = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "slotd_reconciliation_last_success_timestamp_seconds",
		Help: "When the last periodic reconciliation finished (Unix time).",
	})
	m.offers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_waitlist_offers_total",
		Help: "Waitlist offers by outcome: made (a HELD offer given to an entry), accepted, declined, expired (an offer, or an accepted one awaiting payment, timed out).",
	}, []string{"outcome"})
	m.reminders = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_reminders_total",
		Help: "Reminders by outcome: enqueued and passed (an offset whose time had gone by) by the scans, delivered and dropped (no longer BOOKED, or started) by the notification worker.",
	}, []string{"outcome"})
	for _, o := range booking.OfferOutcomes {
		m.offers.WithLabelValues(o)
	}
	for _, o := range booking.ReminderOutcomes {
		m.reminders.WithLabelValues(o)
	}
	m.reg.MustRegister(m.bookings, m.booking, m.batchSize, m.decision, m.requests, m.reconcile, m.reconAt, m.offers, m.reminders)
	return m
}

// Offers counts waitlist offers (booking.WaitlistObserver).
func (m *Metrics) Offers(outcome string, n int) { m.offers.WithLabelValues(outcome).Add(float64(n)) }

// Reminders counts reminders (booking.WaitlistObserver).
func (m *Metrics) Reminders(outcome string, n int) {
	m.reminders.WithLabelValues(outcome).Add(float64(n))
}

// WaitlistEntries registers slotd_waitlist_entries, the live entries by
// state, read from count at each scrape (the database's, so every
// instance reports the same: aggregate with max, not sum).
func (m *Metrics) WaitlistEntries(count func() (map[string]int, error)) {
	m.reg.MustRegister(&entriesCollector{count: count, desc: prometheus.NewDesc("slotd_waitlist_entries",
		"Live waitlist entries by state (WAITING, OFFERED), from the database; the same on every instance.", []string{"state"}, nil)})
}

type entriesCollector struct {
	count func() (map[string]int, error)
	desc  *prometheus.Desc
}

func (c *entriesCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect reports nothing when the count fails: no series is better than
// a false zero.
func (c *entriesCollector) Collect(ch chan<- prometheus.Metric) {
	counts, err := c.count()
	if err != nil {
		return
	}
	for st, n := range counts {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n), st)
	}
}

// Booked records one booking attempt (booking.Observer).
func (m *Metrics) Booked(outcome string, gated bool, took time.Duration) {
	g := strconv.FormatBool(gated)
	m.bookings.WithLabelValues(outcome, g).Inc()
	m.booking.WithLabelValues(g).Observe(took.Seconds())
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

// LabelledCounterFunc is CounterFunc for one series of a labelled counter
// (fallbacks counted by an adapter, one call per label value).
func (m *Metrics) LabelledCounterFunc(name, help string, labels prometheus.Labels, fn func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, fn))
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// CounterFunc registers a counter read from fn at each scrape: a total the
// process keeps elsewhere (the pool's accumulated wait).
func (m *Metrics) CounterFunc(name, help string, fn func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, fn))
}

// BuildInfo registers slotd_build_info: 1, labelled with the binary's
// version, VCS revision and Go version, so a dashboard can tell which build
// answers.
func (m *Metrics) BuildInfo(version, revision, goVersion string) {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "slotd_build_info",
		Help:        "The running build: version and VCS revision as labels; always 1.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": goVersion},
	})
	g.Set(1)
	m.reg.MustRegister(g)
}

// Reconciled records a reconciliation's findings, count per kind, at.
func (m *Metrics) Reconciled(at time.Time, counts map[string]int) {
	for kind, n := range counts {
		m.reconcile.WithLabelValues(kind).Set(float64(n))
	}
	m.reconAt.Set(float64(at.Unix()))
}
