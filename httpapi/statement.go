package httpapi

import (
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// maxStatementAge is how far back a day may be reconciled against the
// provider: WeChat Pay keeps its bills three months, and a year is beyond
// any provider's promise.
const maxStatementAge = 366

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
	day := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, s.zone)
	if today := s.now().In(s.zone); day.After(today) || today.Sub(day) > maxStatementAge*24*time.Hour {
		return inBody(errorf(booking.CodeInvalidRequest, "day must be a day of the last %d, today at the latest", maxStatementAge), "/day")
	}
	c, err := s.svc.ReconcileStatement(r.Context(), day)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}
