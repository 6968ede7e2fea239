package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/booking"
)

// patientsPerPage bounds the patients list.
const patientsPerPage = 50

// handleStaffPatients lists patients, a page at a time, with a form to
// register one. Phone numbers are shown masked.
func (s *server) handleStaffPatients(w http.ResponseWriter, r *http.Request, _ session) {
	s.renderStaffPatients(w, r, http.StatusOK, patientForm{})
}

// handleStaffFindPatient finds patients by phone (in any format of the
// clinic's region) or e-mail, through their keyed hashes. A POST, so that
// the number is in no URL, history or log.
func (s *server) handleStaffFindPatient(w http.ResponseWriter, r *http.Request, _ session) {
	q := strings.TrimSpace(r.PostFormValue("find"))
	form := patientForm{Find: q, Searched: true}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	var err error
	if strings.Contains(q, "@") {
		form.Found, err = s.accounts.PatientsByEmail(ctx, q)
	} else if ph := s.svc.NormalizePhone(q); ph != "" {
		var p booking.Patient
		if p, err = s.accounts.PatientByPhone(ctx, ph); err == nil {
			form.Found = []booking.Patient{p}
		} else if booking.ErrorCode(err) == booking.CodeNotFound {
			err = nil
		}
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	s.renderStaffPatients(w, r, http.StatusOK, form)
}

// patientForm is the registration form as typed, with the field in error,
// so that a mistake does not lose the rest.
type patientForm struct {
	Name, Phone, Email string
	Error              string // "name", "phone", "phone-taken" or "email"
	// Find is a look-up as typed, Found what it found.
	Find     string
	Searched bool
	Found    []booking.Patient
}

func (s *server) renderStaffPatients(w http.ResponseWriter, r *http.Request, status int, form patientForm) {
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
		Form     patientForm
	}{Patients: ps, Form: form}
	if len(ps) > patientsPerPage {
		data.Patients = ps[:patientsPerPage]
		data.Next = ps[patientsPerPage-1].ID
	}
	p := s.newPage(w, r, "Patients")
	if r.URL.Query().Has("created") {
		p.Notice = p.T("Patient registered. They can now sign in with their phone number.")
	}
	if r.URL.Query().Has("erased") {
		p.Notice = p.T("The patient's personal data was erased.")
	}
	if form.Error != "" {
		msg := p.T("Please enter the patient's name.")
		switch form.Error {
		case "phone":
			msg = p.T("This is not a phone number.")
		case "email":
			msg = p.T("This is not an e-mail address.")
		case "phone-taken":
			msg = p.T("A patient with this phone number is already registered.")
		}
		p.Problem = &problemView{Code: string(booking.CodeInvalidRequest), Title: p.T("Please check the form"), Message: msg}
	}
	p.Data = data
	s.render(w, r, status, "staff_patients", p)
}

// handleStaffCreatePatient registers a patient (name and phone, optional
// e-mail). The phone is never logged.
func (s *server) handleStaffCreatePatient(w http.ResponseWriter, r *http.Request, _ session) {
	name, ok := cleanName(r.PostFormValue("name"))
	phone := strings.TrimSpace(r.PostFormValue("phone"))
	email := strings.TrimSpace(r.PostFormValue("email"))
	form := patientForm{Name: r.PostFormValue("name"), Phone: phone, Email: email}
	switch {
	case !ok:
		form.Error = "name"
	case s.svc.NormalizePhone(phone) == "":
		form.Error = "phone"
	case len(email) > 254 || (email != "" && !strings.Contains(email, "@")):
		form.Error = "email"
	}
	if form.Error != "" {
		s.renderStaffPatients(w, r, http.StatusBadRequest, form)
		return
	}
	if _, err := s.svc.CreatePatient(r.Context(), booking.Patient{Name: name, Phone: phone, Email: email}); err != nil {
		if booking.ErrorCode(err) == booking.CodeConflict {
			// A phone is one patient's (its keyed hash is unique).
			form.Error = "phone-taken"
			s.renderStaffPatients(w, r, http.StatusConflict, form)
			return
		}
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/patients?created=1")
}
