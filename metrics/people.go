package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/booking"
)

// newPeople is slotd_people_total, registered by New.
func newPeople(reg *prometheus.Registry) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "slotd_people_total",
		Help: "Accounts' changes to the people they manage by action (add, update, remove) and outcome: done, or the problem code that refused it (conflict: the policy's maxPeople, or a removal while booked; not-found; invalid-request).",
	}, []string{"action", "outcome"})
	for _, a := range booking.PersonActions {
		c.WithLabelValues(a, "done")
	}
	reg.MustRegister(c)
	return c
}

// Person counts an account's change to a person it manages
// (service.PeopleObserver).
func (m *Metrics) Person(action, outcome string) { m.people.WithLabelValues(action, outcome).Inc() }
