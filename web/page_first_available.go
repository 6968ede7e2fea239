package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// placeCard is one first-available place as a patient reads it.
type placeCard struct {
	When   string // the day and time in the doctor's zone
	Doctor booking.Doctor
	Site   string
	// Book leads to the doctor's day with the time and the service
	// chosen for review.
	Book string
}

// handleFirstAvailable lists, for ?service= (and ?site=), the soonest
// times a visit can start across the doctors who offer it: the API's
// first-available search as a page for a phone. Without a service it
// lists the services to choose from.
func (s *server) handleFirstAvailable(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	sites := s.sites(ctx)
	var site booking.Site
	if v := q.Get("site"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		var ok bool
		if site, ok = s.site(ctx, id); err != nil || !ok {
			s.renderError(w, r, booking.NotFound("site"))
			return
		}
	}
	p := s.newPage(w, r, "First free times")
	if site.ID != 0 {
		p.atSite(site)
	}
	data := struct {
		Service  booking.Service
		Services []booking.Service
		Sites    []booking.Site
		Site     booking.Site
		Places   []placeCard
	}{Site: site}
	if len(sites) > 1 {
		data.Sites = sites
	}
	raw := q.Get("service")
	if raw == "" {
		vs, err := s.store.ListServices(ctx, booking.ServiceFilter{}, booking.Page{Limit: maxHomeServices})
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		data.Services = vs
		p.Data = data
		s.render(w, r, http.StatusOK, "first_available", p)
		return
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		s.renderError(w, r, booking.NotFound("service"))
		return
	}
	svc, err := s.svc.GetService(r.Context(), id)
	if err == nil && !svc.Active {
		err = booking.NotFound("service")
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	places, err := s.places(ctx, svc, site.ID)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	data.Service = svc
	if data.Places, err = s.placeCards(ctx, p, svc, places); err != nil {
		s.renderError(w, r, err)
		return
	}
	p.Title = svc.Name + " · " + p.T("First free times")
	p.Data = data
	s.render(w, r, http.StatusOK, "first_available", p)
}

// placeCards names the doctors and sites of places: one read of each
// doctor (at most maxPlaces) and one of the departments.
func (s *server) placeCards(ctx context.Context, p *page, svc booking.Service, places []booking.Place) ([]placeCard, error) {
	doctors := map[int64]booking.Doctor{}
	out := make([]placeCard, 0, len(places))
	siteOf := s.departmentSites(ctx)
	for _, pl := range places {
		d, ok := doctors[pl.DoctorID]
		if !ok {
			var err error
			if d, err = s.store.GetDoctor(ctx, pl.DoctorID); err != nil {
				return nil, err
			}
			doctors[d.ID] = d
		}
		loc := zone(d.TimeZone)
		day := schedule.DateOf(pl.StartAt, loc)
		out = append(out, placeCard{When: s.when(p, pl.StartAt, loc), Doctor: d, Site: siteOf[d.DepartmentID].Name,
			Book: "/doctors/" + itoa(d.ID) + "/days/" + day.String() + "?slot=" + itoa(pl.SlotID) + "&service=" + itoa(svc.ID) + "#review"})
	}
	return out, nil
}

// when is t as a card shows it: "Today, 09:30", "Tomorrow, 09:30", or
// its day and time.
func (s *server) when(p *page, t time.Time, loc *time.Location) string {
	switch today := schedule.DateOf(s.now(), loc); schedule.DateOf(t, loc) {
	case today:
		return p.T("Today, %s", fmtClock(p.pr, t, loc))
	case today.AddDays(1):
		return p.T("Tomorrow, %s", fmtClock(p.pr, t, loc))
	}
	return p.T("%s, %s", dayTitle(p.pr, schedule.DateOf(t, loc)), fmtClock(p.pr, t, loc))
}

// departmentSites maps each department to its site (a site it cannot
// read is the zero Site: its card names none).
func (s *server) departmentSites(ctx context.Context) map[int64]booking.Site {
	deps, err := s.store.ListDepartmentsBy(ctx, booking.DepartmentFilter{All: true}, booking.Page{})
	out := map[int64]booking.Site{}
	if err != nil {
		return out
	}
	for _, d := range deps {
		out[d.ID], _ = s.site(ctx, d.SiteID)
	}
	return out
}
