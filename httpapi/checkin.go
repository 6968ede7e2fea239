package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// checkInRequest is the body of POST /api/appointments/{id}/check-in: the
// code on the patient's confirmation (required from a patient; staff may
// send {}).
type checkInRequest struct {
	Code string `json:"code"`
}

// checkIn checks a patient in on the day (service.Service.CheckIn): 200
// with the ARRIVED appointment, also when it had arrived already. A
// patient's attempt spends one booking attempt of the rate limiter, so
// that codes cannot be guessed at speed.
func (s *server) checkIn(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in checkInRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if len(in.Code) > 4*booking.CheckInCodeLen {
		return fieldErrorf("/code", "code must be at most %d characters", 4*booking.CheckInCodeLen)
	}
	if patient, ok := c.PatientID(); ok {
		if in.Code == "" {
			return fieldErrorf("/code", "code is required: the check-in code on the confirmation")
		}
		if err := s.rateLimit(w, patient); err != nil {
			return err
		}
	}
	a, _, err := s.svc.CheckIn(r.Context(), actorOf(c), id, in.Code)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}
