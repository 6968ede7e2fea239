package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// The clinic's sites: public list, admin create and change.

func (s *server) listSites(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
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

// siteBody is the body of POST /api/admin/sites and, every field
// optional, of PATCH /api/admin/sites/{id}. lat and lon go together.
type siteBody struct {
	Name     *string  `json:"name"`
	Address  *string  `json:"address"`
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
	TimeZone *string  `json:"timezone"`
	Phone    *string  `json:"phone"`
}

// update is the body as a change, its name cleaned like every name.
func (b siteBody) update() (booking.SiteUpdate, error) {
	u := booking.SiteUpdate{Address: b.Address, TimeZone: b.TimeZone, Phone: b.Phone}
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
		return errorf(booking.CodeInvalidRequest, "give at least one of name, address, lat and lon, timezone, phone")
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
