package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/service"
)

// TestObserversForwardEveryCount: the observers the Service is given
// implement each optional observer the metrics implement, so that no
// count stops on the way (the Service asks its one Observer for them).
func TestObserversForwardEveryCount(t *testing.T) {
	m := metrics.New()
	var o service.Observer = observers{m}
	for name, ok := range map[string]bool{
		"WaitlistObserver": implements[service.WaitlistObserver](o) == implements[service.WaitlistObserver](m),
		"PeopleObserver":   implements[service.PeopleObserver](o) == implements[service.PeopleObserver](m),
		"LotteryObserver":  implements[service.LotteryObserver](o) == implements[service.LotteryObserver](m),
		"PaymentObserver":  implements[service.PaymentObserver](o) == implements[service.PaymentObserver](m),
		"SeriesObserver":   implements[service.SeriesObserver](o) == implements[service.SeriesObserver](m),
		"ListingObserver":  implements[service.ListingObserver](o) && implements[service.ListingObserver](m),
		"PlaceStreamObserver": implements[service.PlaceStreamObserver](o) == implements[service.PlaceStreamObserver](m) &&
			implements[service.PlaceStreamObserver](m),
	} {
		if !ok {
			t.Errorf("the metrics implement service.%s but the observers do not forward it", name)
		}
	}
	if p, ok := o.(service.PeopleObserver); ok {
		p.Person("add", "done")
	}
	if s, ok := o.(service.SeriesObserver); ok {
		s.NextDoseBooked("created")
		s.EligibilityRefused("not-eligible")
	}
	if p, ok := o.(service.PlaceStreamObserver); ok {
		p.PlaceStreams(3)
	}
	if l, ok := o.(service.ListingObserver); ok {
		l.PersonalListing(true)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`slotd_people_total{action="add",outcome="done"} 1`, `slotd_series_next_doses_total{outcome="created"} 1`, `slotd_eligibility_refusals_total{reason="not-eligible"} 1`, `slotd_listings_for_person_total{rules="yes"} 1`, `slotd_waitingroom_place_streams 3`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
}

func implements[T any](x any) bool {
	_, ok := x.(T)
	return ok
}
