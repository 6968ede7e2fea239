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
	as, err := s.svc.AccountAppointments(r.Context(), sess.PatientID, "", booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p := s.newPage(w, r, "My appointments")
	views := make([]apptView, 0, len(as))
	// Each of the account's people's appointments names whom it is for.
	names := map[int64]string{}
	for _, person := range s.peopleOf(r, sess.PatientID) {
		names[person.ID] = person.Name
	}
	for _, a := range as {
		v := s.apptViewOf(ctx, p.pr, a)
		if a.PatientID != sess.PatientID {
			v.For = names[a.PatientID]
		}
		views = append(views, v)
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
