package web

import (
	"cmp"
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
	v := staffOpeningPage{Report: rep, Opens: p.pr.DateTime(rep.OpensAt.In(s.clinicZone)),
		FirstSale: seconds(p, rep.FirstSaleSeconds), SellOut: seconds(p, rep.SellOutSeconds), Refusals: outcomeRows(rep.Requests.Outcomes)}
	p.Data = v
	s.render(w, r, http.StatusOK, "staff_opening", p)
}

// seconds is a time from the opening, "—" for none.
func seconds(p *page, f *float64) string {
	if f == nil {
		return "—"
	}
	return p.pr.T("%s s", fmt.Sprintf("%.1f", *f))
}

// outcomeRows are the counts by outcome, most first.
func outcomeRows(m map[string]int64) []outcomeRow {
	rows := make([]outcomeRow, 0, len(m))
	for o, n := range m {
		rows = append(rows, outcomeRow{Outcome: o, N: n})
	}
	slices.SortFunc(rows, func(a, b outcomeRow) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Outcome, b.Outcome)) })
	return rows
}

// openingSummaryPage is what opening_summary.html shows.
type openingSummaryPage struct {
	Summary   booking.OpeningSummary
	Opens     string
	FirstSale string
	SellOut   string
	Refusals  []outcomeRow
}

// handleOpeningSummary is the public page of an opening's summary, where
// the clinic publishes it (404 otherwise).
func (s *server) handleOpeningSummary(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	sum, err := s.svc.OpeningSummary(r.Context(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "How the opening went")
	p.Data = openingSummaryPage{Summary: sum, Opens: p.pr.DateTime(sum.OpensAt.In(s.clinicZone)),
		FirstSale: seconds(p, sum.FirstSaleSeconds), SellOut: seconds(p, sum.SellOutSeconds), Refusals: outcomeRows(sum.Refusals)}
	s.render(w, r, http.StatusOK, "opening_summary", p)
}
