package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// The clinic's sites: public list, admin create and change.

func (s *server) listSites(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, withPage("near")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	if v, ok := q["near"]; ok {
		return s.listSitesNear(w, r, v, p)
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	vs, err := s.store.ListSites(ctx, p.store())
	if err != nil {
		return storeErr(ctx, err)
	}
	writeJSON(w, http.StatusOK, pageOf(vs, p, func(v booking.Site) int64 { return v.ID }))
	return nil
}

// listSitesNear answers ?near=lat,lon: the sites with a position, nearest
// first. A page's cursor is the number of sites listed before the next
// one: distances are not keys a cursor could resume after.
func (s *server) listSitesNear(w http.ResponseWriter, r *http.Request, near string, p pageRequest) error {
	q, err := parseNear(near)
	if err != nil {
		return inParam(err, "near")
	}
	q.Skip, q.Limit = int(p.After), p.Limit+1
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	vs, err := s.store.ListSitesNear(ctx, q)
	if err != nil {
		return storeErr(ctx, err)
	}
	// pageOf asks the key of a full page's last site only: the page's end.
	end := p.After + int64(p.Limit)
	writeJSON(w, http.StatusOK, pageOf(vs, p, func(booking.SiteDistance) int64 { return end }))
	return nil
}

// parseNear reads "lat,lon" in degrees.
func parseNear(v string) (booking.SitesNear, error) {
	bad := errorf(booking.CodeInvalidRequest, "near must be lat,lon in degrees, lat from -90 to 90 and lon from -180 to 180")
	latS, lonS, ok := strings.Cut(v, ",")
	lat, errLat := strconv.ParseFloat(strings.TrimSpace(latS), 64)
	lon, errLon := strconv.ParseFloat(strings.TrimSpace(lonS), 64)
	q := booking.SitesNear{Lat: lat, Lon: lon}
	if !ok || errLat != nil || errLon != nil || q.Validate() != nil {
		return q, bad
	}
	return q, nil
}

// siteBody is the body of POST /api/admin/sites and, every field
// optional, of PATCH /api/admin/sites/{id}. lat and lon go together.
type siteBody struct {
	Name     *string  `json:"name"`
	Address  *string  `json:"address"`
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
	TimeZone *string  `json:"timezone"`
	Phone    *string  `json:"phone"`
	// OpeningHours replaces the site's week.
	OpeningHours *booking.OpeningHours `json:"openingHours"`
}

// update is the body as a change, its name cleaned like every name.
func (b siteBody) update() (booking.SiteUpdate, error) {
	u := booking.SiteUpdate{Address: b.Address, TimeZone: b.TimeZone, Phone: b.Phone, OpeningHours: b.OpeningHours}
	if b.Name != nil {
		n, err := cleanName(*b.Name, "name")
		if err != nil {
			return u, err
		}
		u.Name = &n
	}
	switch {
	case (b.Lat == nil) != (b.Lon == nil):
		return u, errorf(booking.CodeInvalidRequest, "lat and lon go together")
	case b.Lat != nil:
		u.Position = &booking.Position{Lat: *b.Lat, Lon: *b.Lon}
	}
	return u, nil
}

func (s *server) createSite(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in siteBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name == nil || in.TimeZone == nil {
		return errorf(booking.CodeInvalidRequest, "name and timezone are required")
	}
	u, err := in.update()
	if err != nil {
		return err
	}
	v := u.Apply(booking.Site{})
	if err := v.Validate(); err != nil {
		return err
	}
	v, err = s.svc.CreateSite(r.Context(), v)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, v)
	return nil
}

func (s *server) updateSite(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in siteBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in == (siteBody{}) {
		return errorf(booking.CodeInvalidRequest, "give at least one of name, address, lat and lon, timezone, phone, openingHours")
	}
	u, err := in.update()
	if err != nil {
		return err
	}
	v, err := s.svc.UpdateSite(r.Context(), id, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// siteParam reads the optional ?site= of a listing; 0 when absent.
func siteParam(q map[string]string) (int64, error) {
	v, ok := q["site"]
	if !ok {
		return 0, nil
	}
	id, err := parseID(v, "site")
	if err != nil {
		return 0, inParam(err, "site")
	}
	return id, nil
}
