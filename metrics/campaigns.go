package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// series are the campaigns' counters (dose series, group bookings),
// registered by New.
type series struct {
	bookings *prometheus.CounterVec
	doses    prometheus.Counter
	next     *prometheus.CounterVec
	groups   *prometheus.CounterVec
	members  prometheus.Counter
	refusals *prometheus.CounterVec
	batch    prometheus.Histogram
	personal *prometheus.CounterVec
}

func newSeries(reg *prometheus.Registry) series {
	s := series{
		bookings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_series_bookings_total",
			Help: "Dose series booking requests (POST /api/series-bookings) by outcome: created, replayed (a retry) or the problem code that refused the whole series.",
		}, []string{"outcome"}),
		doses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "slotd_series_doses_booked_total",
			Help: "Appointments booked as doses of the series created.",
		}),
		next: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_series_next_doses_total",
			Help: "Next dose requests (POST /api/series-bookings/{id}/doses) by outcome: created, replayed (a retry) or the problem code that refused the dose (dose-outside-window: a slot outside the window after the dose before).",
		}, []string{"outcome"}),
		groups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_group_bookings_total",
			Help: "Group booking requests (POST /api/group-bookings) by outcome: created, replayed (a retry) or the problem code that refused the whole group.",
		}, []string{"outcome"}),
		members: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "slotd_group_members_booked_total",
			Help: "Places booked by the group bookings created, one per person.",
		}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_eligibility_refusals_total",
			Help: "Booking requests (single, series, group, visit) a campaign's rule (a schedule's or a service's) refused, by reason: not-eligible (age or cohort), invitation-required (no valid unused code) or places-reserved (the places left are held for a cohort or invitations until a time).",
		}, []string{"reason"}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "slotd_series_batch_size",
			Help:    "Dose series decided in one transaction (the series' group commit: the series waiting at the same moment, each still all or nothing).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64},
		}),
		personal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_listings_for_person_total",
			Help: "Slot listings (doctor's day, first available, the web day page) answered for one person, by rules: yes when a shown slot had a campaign's rule, no when none had (the answer was then the free places, after one read of the rules).",
		}, []string{"rules"}),
	}
	for _, o := range []string{"created", "replayed"} {
		s.bookings.WithLabelValues(o)
		s.groups.WithLabelValues(o)
		s.next.WithLabelValues(o)
	}
	for _, r := range []string{"not-eligible", "invitation-required", "places-reserved"} {
		s.refusals.WithLabelValues(r)
	}
	s.personal.WithLabelValues("yes")
	s.personal.WithLabelValues("no")
	reg.MustRegister(s.bookings, s.doses, s.next, s.groups, s.members, s.refusals, s.batch, s.personal)
	return s
}

// SeriesBooked counts one series booking request and, when created, its
// doses (service.SeriesObserver).
func (m *Metrics) SeriesBooked(outcome string, doses int) {
	m.series.bookings.WithLabelValues(outcome).Inc()
	m.series.doses.Add(float64(doses))
}

// NextDoseBooked counts one next dose request
// (service.SeriesObserver).
func (m *Metrics) NextDoseBooked(outcome string) {
	m.series.next.WithLabelValues(outcome).Inc()
}

// GroupBooked counts one group booking request and, when created, its
// people (service.SeriesObserver).
func (m *Metrics) GroupBooked(outcome string, members int) {
	m.series.groups.WithLabelValues(outcome).Inc()
	m.series.members.Add(float64(members))
}

// EligibilityRefused counts one request a campaign's rule refused
// (service.SeriesObserver).
func (m *Metrics) EligibilityRefused(reason string) {
	m.series.refusals.WithLabelValues(reason).Inc()
}

// PersonalListing counts one listing answered for one person
// (service.ListingObserver).
func (m *Metrics) PersonalListing(withRules bool) {
	l := "no"
	if withRules {
		l = "yes"
	}
	m.series.personal.WithLabelValues(l).Inc()
}

// SeriesBatch records one transaction that decided size series
// (service.SeriesBatchObserver).
func (m *Metrics) SeriesBatch(size int, _ time.Duration) {
	m.series.batch.Observe(float64(size))
}
