package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// newPaymentNotifications is the counter of the payment providers'
// notifications, registered by New.
func newPaymentNotifications(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_payment_notifications_total",
		Help: "Payment providers' notifications (the signed callback, Stripe's webhook events, WeChat Pay's notifications) by provider and outcome: applied (a held appointment booked), duplicate (known already), rejected (recorded and refunded, or conflicting), refund (a refund's outcome), refund-reversed (the provider failed a refund recorded as succeeded: settle it at the provider), ignored (an event slotd does not act on), unverified (bad or old signature: a misconfigured secret or an attack), invalid, error.",
	}, []string{"provider", "outcome"})
	reg.MustRegister(c)
	return c
}

// PaymentNotified counts one notification (service.PaymentObserver).
func (m *Metrics) PaymentNotified(provider, outcome string) {
	m.payNotes.WithLabelValues(provider, outcome).Inc()
}
