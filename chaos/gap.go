package chaos

import (
	"fmt"
	"net/http"
	"sort"
	"time"
)

// checkGap measures a failover from the record: the longest time between
// two confirmed bookings (the leader's loss to the first booking on the
// next one), the answers given meanwhile, and whether bookings were
// confirmed again before the rush stopped at end. It returns the figures'
// line.
func checkGap(all []attempt, end time.Time, add func(string, error)) string {
	var ok []time.Time
	for _, a := range all {
		if a.Kind == "book" && (a.Status == http.StatusCreated || a.Status == http.StatusOK) {
			ok = append(ok, a.End)
		}
	}
	if len(ok) == 0 {
		add("bookings were confirmed", fmt.Errorf("none of %d requests confirmed a booking", len(all)))
		return ""
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].Before(ok[j]) })
	from, to := ok[0], ok[0]
	for i := 1; i < len(ok); i++ {
		if ok[i].Sub(ok[i-1]) > to.Sub(from) {
			from, to = ok[i-1], ok[i]
		}
	}
	trailing := end.Sub(ok[len(ok)-1])
	var err error
	if trailing > to.Sub(from) {
		err = fmt.Errorf("no booking confirmed in the last %v of the rush: slotd did not reach the new leader", trailing.Round(time.Millisecond))
	}
	add("bookings are confirmed again after the fault, without a restart of slotd", err)
	var answered503, unanswered, other int
	for _, a := range all {
		if a.Start.Before(from) || a.Start.After(to) {
			continue
		}
		switch {
		case a.Status == http.StatusServiceUnavailable:
			answered503++
		case a.Status == 0:
			unanswered++
		case a.Status >= 500:
			other++
		}
	}
	return fmt.Sprintf("longest time without a confirmed booking %v (%s to %s); meanwhile %d answers 503, %d other 5xx, %d unanswered",
		to.Sub(from).Round(time.Millisecond), from.Format("15:04:05.000"), to.Format("15:04:05.000"), answered503, other, unanswered)
}
