package web

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/slotd/slotd/booking"
)

// staffOpeningPage is what staff_opening.html shows: an opening's fairness
// report (docs/clinic.md, "Fairness report").
type staffOpeningPage struct {
	Report    booking.OpeningReport
	Opens     string
	FirstSale string
	SellOut   string
	Refusals  []outcomeRow
}

// outcomeRow is one outcome of the opening's requests.
type outcomeRow struct {
	Outcome string
	N       int64
}

// handleStaffOpening is the staff's page of an opening's fairness report.
func (s *server) handleStaffOpening(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	rep, err := s.svc.OpeningReport(r.Context(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Fairness report")
	v := staffOpeningPage{Report: rep, Opens: p.pr.DateTime(rep.OpensAt.In(s.clinicZone))}
	seconds := func(f *float64) string {
		if f == nil {
			return "—"
		}
		return p.pr.T("%s s", fmt.Sprintf("%.1f", *f))
	}
	v.FirstSale, v.SellOut = seconds(rep.FirstSaleSeconds), seconds(rep.SellOutSeconds)
	for o, n := range rep.Requests.Outcomes {
		v.Refusals = append(v.Refusals, outcomeRow{Outcome: o, N: n})
	}
	slices.SortFunc(v.Refusals, func(a, b outcomeRow) int { return int(b.N - a.N) })
	p.Data = v
	s.render(w, r, http.StatusOK, "staff_opening", p)
}
