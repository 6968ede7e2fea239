package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// refunds are the refund attempts' counters, registered by New.
type refunds struct {
	attempts *prometheus.CounterVec
	amount   *prometheus.CounterVec
}

func newRefunds(reg *prometheus.Registry) refunds {
	r := refunds{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_refunds_total",
			Help: "Refund attempts by reason (patient-cancel, staff-cancel, suspension, closure, late-payment, amount-mismatch) and outcome: succeeded, retry (refused, asked again with backoff), failed (refused on the last attempt: staff must retry it).",
		}, []string{"reason", "outcome"}),
		amount: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "slotd_refunded_amount_total",
			Help: "Money paid back by succeeded refunds, by reason, in minor units of the clinic currency (--currency).",
		}, []string{"reason"}),
	}
	reg.MustRegister(r.attempts, r.amount)
	return r
}

// Refunded counts one refund attempt (service.RefundObserver).
func (m *Metrics) Refunded(reason, outcome string, amount int64) {
	m.refunds.attempts.WithLabelValues(reason, outcome).Inc()
	if amount > 0 {
		m.refunds.amount.WithLabelValues(reason).Add(float64(amount))
	}
}
