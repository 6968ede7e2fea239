package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// rescheduleRequest is the body of POST /api/appointments/{id}/reschedule.
type rescheduleRequest struct {
	SlotID int64 `json:"slotId"`
}

// reschedule moves an appointment to another slot (service.Service.Reschedule):
// 200 with the moved appointment, also for a retry with the same key.
// A patient's well-formed move spends one booking attempt, as a booking
// does; a malformed one is answered 400 and spends nothing.
func (s *server) reschedule(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := owner(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in rescheduleRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !validID(in.SlotID) {
		return fieldErrorf("/slotId", "slotId must be an id 1 to %d", int64(booking.MaxID))
	}
	if patient != 0 {
		if err := s.rateLimit(w, patient); err != nil {
			return err
		}
	}
	res, err := s.svc.Reschedule(r.Context(), service.RescheduleRequest{AppointmentID: id, PatientID: patient, SlotID: in.SlotID, Key: key})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res.Appointment)
	return nil
}
