package httpapi

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// seriesBookingRequest is the body of POST /api/series-bookings.
type seriesBookingRequest struct {
	SeriesID  int64   `json:"seriesId"`
	SlotIDs   []int64 `json:"slotIds"`
	PatientID *int64  `json:"patientId"`
	// Invitation is a campaign's invitation code, for the first dose
	// whose schedule asks for one.
	Invitation *string `json:"invitation"`
}

// bookSeries books every dose of a series in one decision
// (service.Service.BookSeries): 201 with the booking and its appointments
// in dose order, 200 with the booking as it is now for a retry with the
// same key. Like a booking, a malformed request is answered 400 and spends
// nothing; a well-formed one spends one booking attempt.
func (s *server) bookSeries(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	if err := mayBook(c); err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in seriesBookingRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !validID(in.SeriesID) {
		return fieldErrorf("/seriesId", "seriesId must be an id 1 to %d", int64(booking.MaxID))
	}
	if len(in.SlotIDs) < 1 || len(in.SlotIDs) > booking.MaxDoses {
		return fieldErrorf("/slotIds", "slotIds must list 1 to %d slots, one per dose from dose 1", booking.MaxDoses)
	}
	for k, id := range in.SlotIDs {
		if !validID(id) {
			return fieldErrorf("/slotIds/"+strconv.Itoa(k), "slotId must be an id 1 to %d", int64(booking.MaxID))
		}
	}
	invitation, err := invitationOf(in.Invitation, "/invitation")
	if err != nil {
		return err
	}
	acting, err := s.doseActor(w, r, c, in.PatientID)
	if err != nil {
		return err
	}
	acting.Invitation = invitation
	res, err := s.svc.BookSeries(r.Context(), acting, service.SeriesBookingRequest{SeriesID: in.SeriesID, SlotIDs: in.SlotIDs, Key: key})
	if err != nil {
		return err
	}
	if res.Replayed {
		writeJSON(w, http.StatusOK, res.Booking)
		return nil
	}
	w.Header().Set("Location", "/api/appointments/"+strconv.FormatInt(res.Booking.Appointments[0].ID, 10))
	writeJSON(w, http.StatusCreated, res.Booking)
	return nil
}

// doseActor checks the body's patientId, spends one booking attempt of
// the token's patient (staff: of the patient named, which they must name)
// and answers for whom the caller books (service.Service.ActFor).
func (s *server) doseActor(w http.ResponseWriter, r *http.Request, c auth.Claims, patientID *int64) (booking.Acting, error) {
	if patientID != nil && !validID(*patientID) {
		return booking.Acting{}, fieldErrorf("/patientId", "patientId must be an id 1 to %d", int64(booking.MaxID))
	}
	var named int64
	if patientID != nil {
		named = *patientID
	}
	spend := named
	if c.Role == auth.RolePatient {
		spend, _ = c.PatientID()
	} else if named == 0 {
		return booking.Acting{}, fieldErrorf("/patientId", "an admin must name the patient (patientId)")
	}
	if err := s.rateLimit(w, spend); err != nil {
		return booking.Acting{}, err
	}
	return s.svc.ActFor(r.Context(), actorOf(c), named)
}

// nextDoseRequest is the body of POST /api/series-bookings/{id}/doses.
type nextDoseRequest struct {
	SlotID    int64  `json:"slotId"`
	PatientID *int64 `json:"patientId"`
}

// bookNextDose books the next dose of a series booking
// (service.Service.BookNextDose): 201 with the booking and its
// appointments in dose order, the new one last, 200 with the booking as
// it is now for a retry with the same key. Another patient's booking is
// not found; a slot outside the dose's window is dose-outside-window.
func (s *server) bookNextDose(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	if err := mayBook(c); err != nil {
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
	var in nextDoseRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !validID(in.SlotID) {
		return fieldErrorf("/slotId", "slotId must be an id 1 to %d", int64(booking.MaxID))
	}
	acting, err := s.doseActor(w, r, c, in.PatientID)
	if err != nil {
		return err
	}
	res, err := s.svc.BookNextDose(r.Context(), acting, service.NextDoseRequest{BookingID: id, SlotID: in.SlotID, Key: key})
	if err != nil {
		return err
	}
	if res.Replayed {
		writeJSON(w, http.StatusOK, res.Booking)
		return nil
	}
	as := res.Booking.Appointments
	w.Header().Set("Location", "/api/appointments/"+strconv.FormatInt(as[len(as)-1].ID, 10))
	writeJSON(w, http.StatusCreated, res.Booking)
	return nil
}

// mySeriesBookings lists the caller's series bookings and their
// people's, newest first, each with its doses, one page at a time.
func (s *server) mySeriesBookings(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, ok := c.PatientID()
	if !ok {
		return errorf(booking.CodeForbidden, "only patients have their own series bookings")
	}
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	sbs, err := s.svc.AccountSeriesBookings(r.Context(), patient, p.store())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(sbs, p, func(b booking.SeriesBooking) int64 { return b.ID }))
	return nil
}

// listDoseSeries lists the dose series, one page at a time (public: what
// a campaign's page offers).
func (s *server) listDoseSeries(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	ds, err := s.svc.DoseSeries(r.Context(), p.store())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(ds, p, func(d booking.DoseSeries) int64 { return d.ID }))
	return nil
}

// createDoseSeries adds a dose series (admin).
func (s *server) createDoseSeries(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Name    string               `json:"name"`
		Windows []booking.DoseWindow `json:"windows"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	ds, err := s.svc.CreateDoseSeries(r.Context(), booking.DoseSeries{Name: in.Name, Windows: in.Windows})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, ds)
	return nil
}
