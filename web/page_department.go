package web

import (
	"context"
	"net/http"

	"github.com/slotd/slotd/booking"
)

// handleDepartment lists a department's doctors.
func (s *server) handleDepartment(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	deps, err := s.store.ListDepartments(ctx, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	var dep *booking.Department
	for i := range deps {
		if deps[i].ID == id {
			dep = &deps[i]
		}
	}
	if dep == nil {
		s.renderError(w, r, booking.NotFound("department"))
		return
	}
	docs, err := s.store.ListDoctors(ctx, id, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, dep.Name)
	site, _ := s.site(ctx, dep.SiteID)
	p.atSite(site)
	next := s.nextFree(ctx, "dept|"+itoa(dep.ID), docs)
	cards := make([]doctorCard, len(docs))
	for i, d := range docs {
		cards[i] = doctorCard{Doctor: d, Site: site.Name}
		if t, ok := next[d.ID]; ok {
			cards[i].Next = s.when(p, t, zone(d.TimeZone))
		}
	}
	p.Data = struct {
		Department booking.Department
		Doctors    []doctorCard
	}{*dep, cards}
	s.render(w, r, http.StatusOK, "department", p)
}

// doctorCard is a doctor as the department's list shows one: the
// profile, the site and the next free time ("" when none this week).
type doctorCard struct {
	booking.Doctor
	Site string
	Next string
}

// departmentName is the name of department id, or fallback when it cannot
// be read: a name shown beside something else (a doctor, an appointment),
// so also of a department no longer offered to patients.
func (s *server) departmentName(ctx context.Context, id int64, fallback string) string {
	deps, err := s.store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		return fallback
	}
	for _, d := range deps {
		if d.ID == id {
			return d.Name
		}
	}
	return fallback
}
