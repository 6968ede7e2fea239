package httpapi

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// reconcileStatement reconciles a past day of the clinic's against the
// payment provider's statement (Service.ReconcileStatement). Admins only;
// it changes nothing.
func (s *server) reconcileStatement(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Day string `json:"day"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	d, err := parseDate(in.Day, "day")
	if err != nil {
		return inBody(err, "/day")
	}
	c, err := s.svc.ReconcileStatement(r.Context(), time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, s.zone))
	if booking.ErrorCode(err) == booking.CodeInvalidRequest {
		return inBody(err, "/day")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}
