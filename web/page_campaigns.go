package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
)

// A vaccination campaign's staff page (docs/campaigns.md): generate a batch
// of invitation codes for a schedule (downloaded as CSV for the letters,
// shown this once) and import patients' cohort tags; and the services'
// rules, listed. The rules are set through the API
// (PUT /api/admin/schedules/{id}/eligibility, /api/admin/services/{id}/eligibility).

func (s *server) campaignRoutes() {
	s.mux.HandleFunc("GET /staff/campaigns", s.staff(s.handleStaffCampaigns))
	s.mux.HandleFunc("POST /staff/campaigns/cohorts", s.staff(s.handleStaffCohorts))
	s.mux.HandleFunc("POST /staff/campaigns/invitations", s.staff(s.handleStaffInvitations))
}

// campaignPage is what the page shows: the cohorts' form as posted and
// the import's report.
type campaignPage struct {
	Posted bool
	CSV    string
	Report csvdata.CohortReport
	// Standby is each site's leftover doses today.
	Standby []standbyRow
	// ServiceRules are the services' rules, the first maxServiceRules.
	ServiceRules []serviceRuleRow
}

// standbyRow is one site's standbys for its local day today.
type standbyRow struct {
	Site   booking.Site
	Policy booking.StandbyPolicy
	Day    booking.StandbyDay
}

// standbyRows reads each site's policy and today's standby counts; a site
// whose read fails is left out (the page is a view, the API the record).
func (s *server) standbyRows(r *http.Request) []standbyRow {
	var out []standbyRow
	for _, st := range s.sites(r.Context()) {
		pol, err := s.svc.StandbyPolicy(r.Context(), st.ID)
		if err != nil {
			continue
		}
		day, err := s.svc.StandbyDay(r.Context(), st.ID, s.now().In(zone(st.TimeZone)).Format(time.DateOnly))
		if err != nil {
			continue
		}
		out = append(out, standbyRow{Site: st, Policy: pol, Day: day})
	}
	return out
}

// maxServiceRules bounds the services' rules the page lists.
const maxServiceRules = 100

// serviceRuleRow is a service's rule as the page lists it.
type serviceRuleRow struct {
	Service string // its name, or "#id" when it is not among the services read
	booking.ServiceRule
}

// serviceRules reads the services' rules and their services' names (two
// reads, whatever the number of rules).
func (s *server) serviceRules(r *http.Request) ([]serviceRuleRow, error) {
	rules, err := s.svc.ListServiceEligibility(r.Context(), booking.Page{Limit: maxServiceRules})
	if err != nil || len(rules) == 0 {
		return nil, err
	}
	names := map[int64]string{}
	vs, err := s.svc.Services(r.Context(), booking.ServiceFilter{All: true}, booking.Page{After: rules[0].ServiceID - 1, Limit: booking.MaxPageLimit})
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		names[v.ID] = v.Name
	}
	out := make([]serviceRuleRow, len(rules))
	for k, rule := range rules {
		out[k] = serviceRuleRow{Service: names[rule.ServiceID], ServiceRule: rule}
		if out[k].Service == "" {
			out[k].Service = "#" + strconv.FormatInt(rule.ServiceID, 10)
		}
	}
	return out, nil
}

func (s *server) handleStaffCampaigns(w http.ResponseWriter, r *http.Request, _ session) {
	p := s.newPage(w, r, "Campaigns")
	rules, err := s.serviceRules(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Data = campaignPage{Standby: s.standbyRows(r), ServiceRules: rules}
	s.render(w, r, http.StatusOK, "staff_campaigns", p)
}

func (s *server) handleStaffCohorts(w http.ResponseWriter, r *http.Request, _ session) {
	p := s.newPage(w, r, "Campaigns")
	data := campaignPage{Posted: true, CSV: r.PostFormValue("csv")}
	rows, rep, err := csvdata.ReadCohorts(strings.NewReader(data.CSV))
	if err == nil {
		rep.Added, err = s.svc.ImportCohorts(r.Context(), rows)
	}
	if be, ok := errors.AsType[*booking.Error](err); ok && (be.Code == booking.CodeInvalidRequest || be.Code == booking.CodeNotFound) {
		// A refused file: on the form, with what was pasted.
		v, status := s.explain(r, err)
		v.Detail = detail(p.pr, be)
		p.Problem, p.Data = v, data
		s.render(w, r, status, "staff_campaigns", p)
		return
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	data.Report = rep
	p.Data = data
	s.render(w, r, http.StatusOK, "staff_campaigns", p)
}

// handleStaffInvitations answers the new codes as a CSV download.
func (s *server) handleStaffInvitations(w http.ResponseWriter, r *http.Request, _ session) {
	sched, err := strconv.ParseInt(r.PostFormValue("schedule"), 10, 64)
	count, cerr := strconv.Atoi(r.PostFormValue("count"))
	if err != nil || sched < 1 || sched > booking.MaxID || cerr != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "give a schedule id and a number of codes"))
		return
	}
	codes, err := s.svc.CreateInvitations(r.Context(), sched, count)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="invitations-`+strconv.FormatInt(sched, 10)+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	_ = csvdata.WriteInvitations(w, sched, codes)
}
