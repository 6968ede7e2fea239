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
	if len(in.SlotIDs) < 2 || len(in.SlotIDs) > booking.MaxDoses {
		return fieldErrorf("/slotIds", "slotIds must list 2 to %d slots, one per dose", booking.MaxDoses)
	}
	for k, id := range in.SlotIDs {
		if !validID(id) {
			return fieldErrorf("/slotIds/"+strconv.Itoa(k), "slotId must be an id 1 to %d", int64(booking.MaxID))
		}
	}
	if in.PatientID != nil && !validID(*in.PatientID) {
		return fieldErrorf("/patientId", "patientId must be an id 1 to %d", int64(booking.MaxID))
	}
	var named int64
	if in.PatientID != nil {
		named = *in.PatientID
	}
	spend := named
	if c.Role == auth.RolePatient {
		spend, _ = c.PatientID()
	} else if named == 0 {
		return fieldErrorf("/patientId", "an admin must name the patient (patientId)")
	}
	if err := s.rateLimit(w, spend); err != nil {
		return err
	}
	acting, err := s.svc.ActFor(r.Context(), actorOf(c), named)
	if err != nil {
		return err
	}
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
