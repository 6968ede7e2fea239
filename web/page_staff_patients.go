package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
)

// patientsPerPage bounds the patients list.
const patientsPerPage = 50

// handleStaffPatients lists patients, a page at a time, with a form to
// register one. Phone numbers are shown masked.
func (s *server) handleStaffPatients(w http.ResponseWriter, r *http.Request, _ session) {
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	ps, err := s.accounts.ListPatients(ctx, max(after, 0), patientsPerPage+1)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	data := struct {
		Patients []booking.Patient
		Next     int64
	}{Patients: ps}
	if len(ps) > patientsPerPage {
		data.Patients = ps[:patientsPerPage]
		data.Next = ps[patientsPerPage-1].ID
	}
	p := s.newPage(w, r, "Patients")
	if r.URL.Query().Has("created") {
		p.Notice = "Patient registered. They can now sign in with their phone number."
	}
	p.Data = data
	s.render(w, r, http.StatusOK, "staff_patients", p)
}

// handleStaffCreatePatient registers a patient (name and phone, optional
// e-mail). The phone is never logged.
func (s *server) handleStaffCreatePatient(w http.ResponseWriter, r *http.Request, _ session) {
	name, ok := cleanName(r.PostFormValue("name"))
	phone := strings.TrimSpace(r.PostFormValue("phone"))
	email := strings.TrimSpace(r.PostFormValue("email"))
	if !ok || accounts.NormalizePhone(phone) == "" || len(email) > 254 || (email != "" && !strings.Contains(email, "@")) {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "patient"))
		return
	}
	if _, err := s.svc.CreatePatient(r.Context(), booking.Patient{Name: name, Phone: phone, Email: email}); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/patients?created=1")
}
