package httpapi

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// walkInRequest is the body of POST /api/admin/slots/{id}/walk-ins.
type walkInRequest struct {
	PatientID int64  `json:"patientId"`
	Reason    string `json:"reason"`
}

// addWalkIn adds a walk-in to a full slot on its day, for the front desk
// (booking.DecideWalkIn): 201 with the appointment, marked walkIn; a retry
// with the same Idempotency-Key answers it again with 200.
func (s *server) addWalkIn(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	slotID, err := pathID(r, "id")
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in walkInRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !validID(in.PatientID) {
		return fieldErrorf("/patientId", "patientId must be an id 1 to %d", int64(booking.MaxID))
	}
	reason, err := booking.CheckWalkInReason(in.Reason)
	if err != nil {
		return fieldErrorf("/reason", "reason is required, at most %d characters", booking.MaxWalkInReason)
	}
	a, replay, err := s.svc.WalkIn(r.Context(), actorOf(c), booking.WalkInRequest{SlotID: slotID, PatientID: in.PatientID, Reason: reason, Key: key})
	if err != nil {
		return err
	}
	if replay {
		writeJSON(w, http.StatusOK, a)
		return nil
	}
	w.Header().Set("Location", "/api/appointments/"+strconv.FormatInt(a.ID, 10))
	writeJSON(w, http.StatusCreated, a)
	return nil
}
