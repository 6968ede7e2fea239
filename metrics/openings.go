package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// openings are the waiting rooms' counters, registered by New.
type openings struct {
	joins    *prometheus.CounterVec
	admitted prometheus.Counter
	rate     prometheus.Gauge
	streams  prometheus.Gauge
}

func newOpenings(reg *prometheus.Registry) openings {
	o := openings{
		joins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_waitingroom_joins_total",
			Help: "Requests to take a place in an opening's queue by outcome: created, existing (a retry, which changes nothing) or a problem code.",
		}, []string{"outcome"}),
		admitted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "slotd_waitingroom_admitted_total",
			Help: "People admitted from the openings' queues by this instance.",
		}),
		rate: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "slotd_waitingroom_admit_rate",
			Help: "The admission rate of this instance's last tick, a second: the bookings the engine answered, at least --admit-rate; 0 while the lanes are half full.",
		}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "slotd_waitingroom_place_streams",
			Help: "Event streams of a person's place in a queue open on this instance (the API's and the page's); at the bound, new ones are refused 503 and the clients poll.",
		}),
	}
	reg.MustRegister(o.joins, o.admitted, o.rate, o.streams)
	return o
}

// OpeningJoined counts one join (service.WaitingRoomObserver).
func (m *Metrics) OpeningJoined(outcome string) { m.openings.joins.WithLabelValues(outcome).Inc() }

// OpeningAdmitted counts admissions (service.WaitingRoomObserver).
func (m *Metrics) OpeningAdmitted(n int, rate float64) {
	m.openings.admitted.Add(float64(n))
	m.openings.rate.Set(rate)
}

// PlaceStreams sets the open place streams (service.PlaceStreamObserver).
func (m *Metrics) PlaceStreams(open int) { m.openings.streams.Set(float64(open)) }
