// Package metrics exposes slotd's Prometheus metrics. It implements
// booking.Observer; cmd/slotd wires it to the Service and the stores.
package metrics

import (
	"net/http"
	"strconv"
	"sync"
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
	offers    *prometheus.CounterVec
	leftovers *prometheus.CounterVec
	revoked   *prometheus.CounterVec
	reminders *prometheus.CounterVec
	staff     *prometheus.CounterVec
	lockouts  prometheus.Counter
	codes     *prometheus.CounterVec // sign-in code requests
	messages  *prometheus.CounterVec // deliveries by channel and outcome
	checks    *prometheus.CounterVec // sign-in code checks
	refunds   refunds
	lottery   lottery
	people    *prometheus.CounterVec // accounts' changes to their people
	openings  openings
	series    series
	signups   *prometheus.CounterVec // patients' sign-ups
	checkins  *prometheus.CounterVec // check-ins by who and outcome
	walkIns   *prometheus.CounterVec // walk-ins by outcome
	payNotes  *prometheus.CounterVec // payment notifications by provider and outcome
	statement statement              // the newest day against the provider's statement
	queue     *prometheus.CounterVec // console actions on the queues
	queueWait prometheus.Histogram   // check-in to first call

	// The observers of requests, booking outcomes and booking times by
	// their labels: WithLabelValues hashes the labels and allocates on
	// every call, which every request paid.
	reqMu    sync.RWMutex
	reqObs   map[routeCode]prometheus.Observer
	bookMu   sync.RWMutex
	bookObs  map[outcomeGated]prometheus.Counter
	bookTime [2]prometheus.Observer // by gated
}

type routeCode struct {
	route string
	code  int
}

type outcomeGated struct {
	outcome string
	gated   bool
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
	m.offers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_waitlist_offers_total",
		Help: "Waitlist offers by outcome, in places: made (a HELD offer given to an entry), accepted, declined, expired (an offer, or an accepted one awaiting payment, timed out); party counts the offers made to parties (one per party).",
	}, []string{"outcome"})
	m.leftovers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_leftover_offers_total",
		Help: "Leftover-dose offers to standbys by outcome: made (a HELD offer of a place left after the check-in window), accepted, declined, expired.",
	}, []string{"outcome"})
	m.reminders = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_reminders_total",
		Help: "Reminders by outcome: enqueued and passed (an offset whose time had gone by) by the scans, delivered and dropped (no longer BOOKED, or started) by the notification worker.",
	}, []string{"outcome"})
	m.staff = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_staff_signins_total",
		Help: "Staff sign-in attempts by outcome: accepted, refused (a wrong name, password or code), replayed (a second-factor code used again), locked (refused unchecked: the name is locked by its failures), totp-not-enrolled (an admin without the second factor --staff-totp-required asks for).",
	}, []string{"outcome"})
	m.lockouts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "slotd_staff_lockouts_total",
		Help: "Staff names locked by their failed sign-ins (each lock, 1 minute doubling up to 1 hour); counted by the instance that took the failure that locked.",
	})
	for _, o := range booking.StaffOutcomes {
		m.staff.WithLabelValues(o)
	}
	m.codes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_signin_codes_total",
		Help: "Sign-in code requests by outcome: sent (to a registered phone), unknown (no patient has the phone: nothing sent), invalid, failed, or the limit that refused it: address, phone (its codes of 15 minutes or of the day), clinic (the codes per minute).",
	}, []string{"outcome"})
	m.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_messages_total",
		Help: "Messages to patients (sign-in codes and appointment messages) by channel (sms, email, webhook, log, none) and outcome: sent (the channel accepted it), retry (an attempt failed; the job tries again), failed (it cannot be delivered), delivered (the provider reported it delivered).",
	}, []string{"channel", "outcome"})
	m.checks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_signin_checks_total",
		Help: "Sign-in code checks by outcome: accepted, wrong, expired, departed (a deactivated or erased patient's right code), invalid, failed, or the limit that refused it: attempts (the code's), phone-day, clinic-day (the day's wrong codes), address.",
	}, []string{"outcome"})
	m.signups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_signups_total",
		Help: "Patients' sign-ups by outcome: created (a new patient), existing (the address was a patient's: signed in), disabled (--signup=false), national-id-taken (real-name registration: the number is another patient's), or the code check's: wrong, expired, attempts, phone-day, clinic-day, address, departed, invalid, failed. Sign-up codes are counted in slotd_signin_codes_total.",
	}, []string{"outcome"})
	for _, o := range []string{"created", "existing"} {
		m.signups.WithLabelValues(o)
	}
	for _, o := range booking.OfferOutcomes {
		m.offers.WithLabelValues(o)
		m.leftovers.WithLabelValues(o)
	}
	for _, o := range booking.ReminderOutcomes {
		m.reminders.WithLabelValues(o)
	}
	m.checkins = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_checkins_total",
		Help: "Check-ins by who (patient with the code, staff: an admin, the appointment's doctor or the kiosk) and outcome: arrived, repeat (already ARRIVED, answered as it was), or the refusal: bad-check-in-code, check-in-too-early, check-in-closed, invalid-transition, not-found, other.",
	}, []string{"by", "outcome"})
	for _, by := range []string{booking.CheckInByPatient, booking.CheckInByStaff} {
		for _, o := range booking.CheckInOutcomes {
			m.checkins.WithLabelValues(by, o)
		}
	}
	m.walkIns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_walk_ins_total",
		Help: "Walk-ins the front desk added beyond a full slot's capacity, by outcome: added, replayed (a retry answered as it was), or the refusal: slot-not-full, walk-in-not-today, walk-in-limit, forbidden, invalid-request, other.",
	}, []string{"outcome"})
	for _, o := range booking.WalkInOutcomes {
		m.walkIns.WithLabelValues(o)
	}
	m.queue = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_queue_calls_total",
		Help: "Console actions on the doctors' queues by action: call (the next patient), recall (the same again), skip (a patient called who did not come, also when the next call passes them), start (in consultation).",
	}, []string{"action"})
	for _, a := range booking.QueueActions {
		m.queue.WithLabelValues(a)
	}
	m.queueWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "slotd_queue_wait_seconds",
		Help:    "How long patients waited from their check-in to their first call.",
		Buckets: []float64{60, 300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200},
	})
	m.revoked = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_tokens_refused_total",
		Help: "Verified tokens and page sessions refused by their subject's revocation mark, by reason: revoked (signed out, a staff password changed, a staff user disabled) or departed (a deactivated or erased patient).",
	}, []string{"reason"})
	for _, r := range []string{"revoked", "departed"} {
		m.revoked.WithLabelValues(r)
	}
	m.refunds = newRefunds(m.reg)
	m.lottery = newLottery(m.reg)
	m.people = newPeople(m.reg)
	m.openings = newOpenings(m.reg)
	m.series = newSeries(m.reg)
	m.reg.MustRegister(m.bookings, m.booking, m.batchSize, m.decision, m.requests, m.offers, m.leftovers, m.reminders, m.staff, m.lockouts, m.revoked, m.codes, m.checks, m.signups, m.checkins, m.walkIns, m.messages, m.queue, m.queueWait)
	m.payNotes = newPaymentNotifications(m.reg)
	m.statement = newStatement(m.reg)
	m.reqObs = map[routeCode]prometheus.Observer{}
	m.bookObs = map[outcomeGated]prometheus.Counter{}
	m.bookTime = [2]prometheus.Observer{m.booking.WithLabelValues("false"), m.booking.WithLabelValues("true")}
	return m
}

// StaffSignIn counts a staff sign-in attempt and whether it locked the
// name (service.StaffObserver).
func (m *Metrics) StaffSignIn(outcome string, lockout bool) {
	m.staff.WithLabelValues(outcome).Inc()
	if lockout {
		m.lockouts.Inc()
	}
}

// CheckIn counts one check-in (service.CheckInObserver).
func (m *Metrics) CheckIn(by, outcome string) { m.checkins.WithLabelValues(by, outcome).Inc() }

// WalkIn counts one walk-in (service.WalkInObserver).
func (m *Metrics) WalkIn(outcome string) { m.walkIns.WithLabelValues(outcome).Inc() }

// QueueAction counts one console action (service.QueueObserver).
func (m *Metrics) QueueAction(action string) { m.queue.WithLabelValues(action).Inc() }

// QueueWait observes one wait from check-in to first call
// (service.QueueObserver).
func (m *Metrics) QueueWait(d time.Duration) { m.queueWait.Observe(d.Seconds()) }

// LeftoverOffers counts leftover-dose offers (service.StandbyObserver).
func (m *Metrics) LeftoverOffers(outcome string, n int) {
	m.leftovers.WithLabelValues(outcome).Add(float64(n))
}

// Offers counts waitlist offers (booking.WaitlistObserver).
func (m *Metrics) Offers(outcome string, n int) { m.offers.WithLabelValues(outcome).Add(float64(n)) }

// TokenRefused counts a token refused by its revocation mark (the
// service's OnRefusedToken): unauthorized is "revoked", the departed
// patient's refusal "departed".
func (m *Metrics) TokenRefused(code booking.Code) {
	reason := "revoked"
	if code != booking.CodeUnauthorized {
		reason = "departed"
	}
	m.revoked.WithLabelValues(reason).Inc()
}

// Message counts a message's delivery outcome (service.MessageObserver).
func (m *Metrics) Message(channel, outcome string) {
	m.messages.WithLabelValues(channel, outcome).Inc()
}

// MessageChannels exports slotd_messages_total at zero for each channel
// and outcome, so that rates (the failing-messages alert) exist before
// the first message.
func (m *Metrics) MessageChannels(channels, outcomes []string) {
	for _, c := range channels {
		for _, o := range outcomes {
			m.messages.WithLabelValues(c, o)
		}
	}
}

// SigninCode counts a sign-in code request (service.SigninObserver).
func (m *Metrics) SigninCode(outcome string) { m.codes.WithLabelValues(outcome).Inc() }

// SigninChecked counts a sign-in code check (service.SigninObserver).
func (m *Metrics) SigninChecked(outcome string) { m.checks.WithLabelValues(outcome).Inc() }

// Signup counts a patient's sign-up (service.SignupObserver).
func (m *Metrics) Signup(outcome string) { m.signups.WithLabelValues(outcome).Inc() }

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
	k := outcomeGated{outcome, gated}
	m.bookMu.RLock()
	c, ok := m.bookObs[k]
	m.bookMu.RUnlock()
	if !ok {
		c = m.bookings.WithLabelValues(outcome, strconv.FormatBool(gated))
		m.bookMu.Lock()
		m.bookObs[k] = c
		m.bookMu.Unlock()
	}
	c.Inc()
	g := 0
	if gated {
		g = 1
	}
	m.bookTime[g].Observe(took.Seconds())
}

// Batch records one decision transaction (booking.Observer).
func (m *Metrics) Batch(size int, took time.Duration) {
	m.batchSize.Observe(float64(size))
	m.decision.Observe(took.Seconds())
}

// Request records one HTTP request.
// The routes are the handlers' patterns and the codes few, so the map of
// observers stays small.
func (m *Metrics) Request(route string, code int, took time.Duration) {
	k := routeCode{route, code}
	m.reqMu.RLock()
	o, ok := m.reqObs[k]
	m.reqMu.RUnlock()
	if !ok {
		o = m.requests.WithLabelValues(route, strconv.Itoa(code))
		m.reqMu.Lock()
		m.reqObs[k] = o
		m.reqMu.Unlock()
	}
	o.Observe(took.Seconds())
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

// Reconciliation is a reconciliation's verdict as the metrics export it:
// when it ran and what it found by kind, each kind a violation (an
// invariant broken) or pending (work to do).
type Reconciliation struct {
	At        time.Time
	Kinds     map[string]int
	Violation func(kind string) bool
}

var (
	reconIssues = prometheus.NewDesc("slotd_reconciliation_issues",
		"What the last scheduled reconciliation found, by kind and class: class=\"violation\" (counter_mismatch, duplicate_active, round_quota_mismatch, refund_missing, broken_series) breaks an invariant, class=\"pending\" (stale_hold, refund_needed, payment_conflict) is work to do.",
		[]string{"kind", "class"}, nil)
	reconAt = prometheus.NewDesc("slotd_reconciliation_last_success_timestamp_seconds",
		"When the last scheduled reconciliation ran (Unix time).", nil, nil)
)

// ReconciliationFrom exports the verdict read reads at each scrape (the
// newest kept in the database, so that every instance exports the same
// one, whichever ran it); nothing before the first run or when read fails.
func (m *Metrics) ReconciliationFrom(read func() (Reconciliation, bool)) {
	m.reg.MustRegister(reconCollector(read))
}

type reconCollector func() (Reconciliation, bool)

func (c reconCollector) Describe(ch chan<- *prometheus.Desc) { ch <- reconIssues; ch <- reconAt }

func (c reconCollector) Collect(ch chan<- prometheus.Metric) {
	r, ok := c()
	if !ok {
		return
	}
	for kind, n := range r.Kinds {
		class := "pending"
		if r.Violation(kind) {
			class = "violation"
		}
		ch <- prometheus.MustNewConstMetric(reconIssues, prometheus.GaugeValue, float64(n), kind, class)
	}
	ch <- prometheus.MustNewConstMetric(reconAt, prometheus.GaugeValue, float64(r.At.Unix()))
}
