package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Staff accounts limited to sites (booking/staffsites.go): an admin reads
// and sets them; the Service refuses an admin limited to sites.

// staffSitesBody is the answer of both operations and the body of PUT.
type staffSitesBody struct {
	Name  string  `json:"name"`
	Sites []int64 `json:"sites"`
}

func (s *server) staffSites(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if _, err := parseQuery(r); err != nil {
		return err
	}
	name := r.PathValue("name")
	sites, err := s.svc.StaffSites(r.Context(), name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, staffSitesBody{Name: name, Sites: sites})
	return nil
}

func (s *server) setStaffSites(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Sites *[]int64 `json:"sites"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Sites == nil {
		return errorf(booking.CodeInvalidRequest, "sites is required: the site ids the account is limited to, [] for every site")
	}
	name := r.PathValue("name")
	sites, err := s.svc.SetStaffSites(r.Context(), name, *in.Sites)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, staffSitesBody{Name: name, Sites: sites})
	return nil
}
