package web

import (
	"net/http"

	"github.com/slotd/slotd/booking"
)

// handleAppointments lists the signed-in patient's appointments, newest
// first, each with a cancel button while it can be cancelled.
func (s *server) handleAppointments(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	as, err := s.svc.Appointments(r.Context(), sess.PatientID, "", booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p := s.newPage(w, r, "My appointments")
	views := make([]apptView, 0, len(as))
	for _, a := range as {
		views = append(views, s.apptViewOf(ctx, p.pr, a))
	}
	if r.URL.Query().Has("cancelled") {
		p.Notice = p.T("Your appointment is cancelled.")
	}
	if r.URL.Query().Has("welcome") {
		p.Notice = p.T("You are signed in.")
	}
	p.Data = views
	s.render(w, r, http.StatusOK, "appointments", p)
}
