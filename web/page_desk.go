package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// The front desk's changes from a doctor's day page (booking.Desk:
// reception and admins): book a place for a person, cancel, move to
// another slot. Each goes through the Service entry point the API's
// POST /api/appointments, DELETE and reschedule use, so the booking rules
// (capacity, one per patient per slot, the caps, a departed patient, the
// idempotency of a retried form) are the same.

// deskMode is what a day page is doing for the front desk: booking for a
// person (?patient=) or moving an appointment (?move=); the slots then
// offer the one button. The query is carried by the day's navigation.
type deskMode struct {
	PatientID   int64
	PatientName string
	MoveID      int64
	MoveName    string
	// Query is the mode as a query string ("patient=7"), "" for none.
	Query string
}

// deskModeOf reads the mode of a day page; an unknown id is no mode.
func (s *server) deskModeOf(r *http.Request) deskMode {
	var m deskMode
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	q := r.URL.Query()
	if id, err := strconv.ParseInt(q.Get("patient"), 10, 64); err == nil && id > 0 {
		if p, err := s.store.GetPatient(ctx, id); err == nil && booking.DepartedRefusal(p) == nil {
			m.PatientID, m.PatientName, m.Query = id, p.Name, "patient="+itoa(id)
		}
		return m
	}
	if id, err := strconv.ParseInt(q.Get("move"), 10, 64); err == nil && id > 0 {
		if a, err := s.svc.Appointment(ctx, id, 0); err == nil && a.Status.Active() {
			m.MoveID, m.MoveName, m.Query = id, "Patient "+itoa(a.PatientID), "move="+itoa(id)
			if p, err := s.store.GetPatient(ctx, a.PatientID); err == nil {
				m.MoveName = p.Name
			}
		}
	}
	return m
}

// deskForm reads what the desk's booking and walk-in forms both carry:
// slot {id}, the form's Idempotency-Key and the person it names.
func deskForm(r *http.Request) (slotID int64, key string, patient int64, err error) {
	if slotID, err = pathID(r, "id"); err != nil {
		return 0, "", 0, err
	}
	if key = r.PostFormValue("key"); !validKey(key) {
		return 0, "", 0, booking.Errorf(booking.CodeMissingIdempotencyKey, "no idempotency key")
	}
	patient, err = strconv.ParseInt(r.PostFormValue("patient"), 10, 64)
	if err != nil || patient <= 0 || patient > booking.MaxID {
		return 0, "", 0, booking.Errorf(booking.CodeInvalidRequest, "name the person by their number")
	}
	return slotID, key, patient, nil
}

// handleDeskBook books slot {id} for the person the form names.
func (s *server) handleDeskBook(w http.ResponseWriter, r *http.Request, sess session) {
	slotID, key, patient, err := deskForm(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	// The API's budget: one attempt of the person booked for.
	if err := s.svc.AttemptBooking(patient).Err(); err != nil {
		s.renderError(w, r, err)
		return
	}
	acting, err := s.svc.ActFor(r.Context(), sess.actor(), patient)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if res := s.svc.BookFor(r.Context(), acting, slotID, key); res.Err != nil {
		s.renderError(w, r, res.Err)
		return
	}
	redirect(w, r, deskNext(r))
}

// handleDeskWalkIn adds the person the form names to full slot {id} as a
// walk-in, for the form's reason (Service.WalkIn decides).
func (s *server) handleDeskWalkIn(w http.ResponseWriter, r *http.Request, sess session) {
	slotID, key, patient, err := deskForm(r)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	req := booking.WalkInRequest{SlotID: slotID, PatientID: patient, Reason: r.PostFormValue("reason"), Key: key}
	if _, _, err := s.svc.WalkIn(r.Context(), sess.actor(), req); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, deskNext(r))
}

// handleDeskCancel cancels appointment {id} for its patient.
func (s *server) handleDeskCancel(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if _, err := s.svc.Cancel(r.Context(), id, 0); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, deskNext(r))
}

// handleDeskReschedule moves appointment {id} to the form's slot.
func (s *server) handleDeskReschedule(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	key := r.PostFormValue("key")
	if !validKey(key) {
		s.renderError(w, r, booking.Errorf(booking.CodeMissingIdempotencyKey, "no idempotency key"))
		return
	}
	slotID, err := strconv.ParseInt(r.PostFormValue("slot"), 10, 64)
	if err != nil || slotID <= 0 || slotID > booking.MaxID {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "slot"))
		return
	}
	if _, err := s.svc.Reschedule(r.Context(), service.RescheduleRequest{AppointmentID: id, SlotID: slotID, Key: key}); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, deskNext(r))
}

// deskNext is where a desk form goes back to: its day page, with done=1
// for the notice (and without the mode: the change is made).
func deskNext(r *http.Request) string {
	next := safeNext(r.PostFormValue("next"), "/staff")
	u, err := url.Parse(next)
	if err != nil {
		return "/staff"
	}
	return u.Path + "?done=1"
}
