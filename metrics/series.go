package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// series are the dose series' counters, registered by New.
type series struct {
	bookings *prometheus.CounterVec
	doses    prometheus.Counter
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
	}
	for _, o := range []string{"created", "replayed"} {
		s.bookings.WithLabelValues(o)
	}
	reg.MustRegister(s.bookings, s.doses)
	return s
}

// SeriesBooked counts one series booking request and, when created, its
// doses (service.SeriesObserver).
func (m *Metrics) SeriesBooked(outcome string, doses int) {
	m.series.bookings.WithLabelValues(outcome).Inc()
	m.series.doses.Add(float64(doses))
}
