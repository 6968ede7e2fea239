package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/booking"
)

// statement holds the gauges of the newest day reconciled against the
// payment provider's statement.
type statement struct {
	diffs *prometheus.GaugeVec
	at    prometheus.Gauge
}

func newStatement(reg *prometheus.Registry) statement {
	s := statement{
		diffs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "slotd_statement_differences",
			Help: "What the newest reconciliation of a day against the payment provider's statement (POST /api/admin/reconciliation/statement, the staff reconciliation page) found, on the instance that ran it, by kind: statement_unknown (the provider took or paid back money slotd has no record of), statement_missing (slotd recorded money the statement lacks), statement_amount (the amounts differ).",
		}, []string{"kind"}),
		at: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "slotd_statement_last_check_timestamp_seconds",
			Help: "When this instance last reconciled a day against the payment provider's statement (Unix time).",
		}),
	}
	reg.MustRegister(s.diffs, s.at)
	// Every kind from the start (0 until a check finds one), so that the
	// alert's series exists before the first check.
	for _, k := range booking.StatementKinds {
		s.diffs.WithLabelValues(k)
	}
	return s
}

// StatementChecked exports a day's check (service.StatementObserver).
func (m *Metrics) StatementChecked(c booking.StatementCheck) {
	for k, n := range c.Kinds() {
		m.statement.diffs.WithLabelValues(k).Set(float64(n))
	}
	m.statement.at.Set(float64(c.CheckedAt.Unix()))
}
