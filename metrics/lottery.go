package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// lottery are the lottery rounds' counters, registered by New.
type lottery struct {
	registrations *prometheus.CounterVec
	draws         *prometheus.CounterVec
	drawn         prometheus.Counter
}

func newLottery(reg *prometheus.Registry) lottery {
	l := lottery{
		registrations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_lottery_registrations_total",
			Help: "Lottery registration requests by outcome: created, existing (a retry, which changes nothing) or a problem code.",
		}, []string{"outcome"}),
		draws: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_lottery_draws_total",
			Help: "Lottery draws that ran, by trigger: close (the round processor at the registration's close) or admin (POST /api/admin/rounds/{id}/draw).",
		}, []string{"trigger"}),
		drawn: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "slotd_lottery_drawn_registrants_total",
			Help: "Registrants ordered by the lottery draws that ran.",
		}),
	}
	reg.MustRegister(l.registrations, l.draws, l.drawn)
	return l
}

// LotteryRegistered counts one registration request (service.LotteryObserver).
func (m *Metrics) LotteryRegistered(outcome string) {
	m.lottery.registrations.WithLabelValues(outcome).Inc()
}

// LotteryDrawn counts one draw that ran (service.LotteryObserver).
func (m *Metrics) LotteryDrawn(trigger string, registrants int) {
	m.lottery.draws.WithLabelValues(trigger).Inc()
	m.lottery.drawn.Add(float64(registrants))
}
