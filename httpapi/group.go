package httpapi

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// groupBookingRequest is the body of POST /api/group-bookings.
type groupBookingRequest struct {
	SlotID     int64   `json:"slotId"`
	PatientIDs []int64 `json:"patientIds"`
	// Invitations are the people's invitation codes, in patientIds'
	// order, where the slot's schedule asks for them.
	Invitations []string `json:"invitations"`
}

// groupBooking is the answer of a group booking: each person's
// appointment in the order asked.
type groupBooking struct {
	Appointments []booking.Appointment `json:"appointments"`
}

// bookGroup books one place of a slot for each person of an account in
// one decision (service.Service.BookGroup): 201 with the appointments, 200
// with them as they are now for a retry with the same key. A malformed
// request is answered 400 and spends nothing; a well-formed one spends one
// booking attempt of the account.
func (s *server) bookGroup(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	if err := mayBook(c); err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in groupBookingRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !validID(in.SlotID) {
		return fieldErrorf("/slotId", "slotId must be an id 1 to %d", int64(booking.MaxID))
	}
	if len(in.PatientIDs) < 1 || len(in.PatientIDs) > booking.MaxGroup {
		return fieldErrorf("/patientIds", "patientIds must list 1 to %d people", booking.MaxGroup)
	}
	seen := map[int64]bool{}
	for k, id := range in.PatientIDs {
		if !validID(id) {
			return fieldErrorf("/patientIds/"+strconv.Itoa(k), "patientId must be an id 1 to %d", int64(booking.MaxID))
		}
		if seen[id] {
			return fieldErrorf("/patientIds/"+strconv.Itoa(k), "patient %d is listed twice", id)
		}
		seen[id] = true
	}
	if len(in.Invitations) > len(in.PatientIDs) {
		return fieldErrorf("/invitations", "invitations must list at most one code per person")
	}
	for k := range in.Invitations {
		if _, err := invitationOf(&in.Invitations[k], "/invitations/"+strconv.Itoa(k)); err != nil {
			return err
		}
	}
	spend := in.PatientIDs[0]
	if c.Role == auth.RolePatient {
		spend, _ = c.PatientID()
	}
	if err := s.rateLimit(w, spend); err != nil {
		return err
	}
	res, err := s.svc.BookGroup(r.Context(), actorOf(c), service.GroupBookingRequest{SlotID: in.SlotID, PatientIDs: in.PatientIDs, Key: key,
		Invitations: in.Invitations})
	if err != nil {
		return err
	}
	if res.Replayed {
		writeJSON(w, http.StatusOK, groupBooking{Appointments: res.Appointments})
		return nil
	}
	w.Header().Set("Location", "/api/appointments/"+strconv.FormatInt(res.Appointments[0].ID, 10))
	writeJSON(w, http.StatusCreated, groupBooking{Appointments: res.Appointments})
	return nil
}
