package web

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// maxHomeServices bounds the services the home page lists.
const maxHomeServices = 24

// handleHome starts from what a patient comes for: the services (each
// leading to its first free places), the sites and a search box, then the
// departments. ?site= narrows the departments and the places to one site.
func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	sites := s.sites(ctx)
	var site booking.Site
	if v := r.URL.Query().Get("site"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		var ok bool
		if site, ok = s.site(ctx, id); err != nil || !ok {
			s.renderError(w, r, booking.NotFound("site"))
			return
		}
	}
	deps, err := s.store.ListDepartmentsBy(ctx, booking.DepartmentFilter{SiteID: site.ID}, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	services, err := s.store.ListServices(ctx, booking.ServiceFilter{}, booking.Page{Limit: maxHomeServices})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Book an appointment")
	if site.ID != 0 {
		p.atSite(site)
	}
	if len(sites) < 2 {
		sites = nil // one site is the clinic itself: nothing to choose
	}
	p.Data = struct {
		Services    []booking.Service
		Sites       []booking.Site
		Site        booking.Site
		Departments []booking.Department
	}{services, sites, site, deps}
	s.render(w, r, http.StatusOK, "home", p)
}
