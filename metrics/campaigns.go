package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// series are the campaigns' counters (dose series, group bookings),
// registered by New.
type series struct {
	bookings *prometheus.CounterVec
	doses    prometheus.Counter
	groups   *prometheus.CounterVec
	members  prometheus.Counter
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
		groups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_group_bookings_total",
			Help: "Group booking requests (POST /api/group-bookings) by outcome: created, replayed (a retry) or the problem code that refused the whole group.",
		}, []string{"outcome"}),
		members: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "slotd_group_members_booked_total",
			Help: "Places booked by the group bookings created, one per person.",
		}),
	}
	for _, o := range []string{"created", "replayed"} {
		s.bookings.WithLabelValues(o)
		s.groups.WithLabelValues(o)
	}
	reg.MustRegister(s.bookings, s.doses, s.groups, s.members)
	return s
}

// SeriesBooked counts one series booking request and, when created, its
// doses (service.SeriesObserver).
func (m *Metrics) SeriesBooked(outcome string, doses int) {
	m.series.bookings.WithLabelValues(outcome).Inc()
	m.series.doses.Add(float64(doses))
}

// GroupBooked counts one group booking request and, when created, its
// people (service.SeriesObserver).
func (m *Metrics) GroupBooked(outcome string, members int) {
	m.series.groups.WithLabelValues(outcome).Inc()
	m.series.members.Add(float64(members))
}
