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
func (s *server) handleStaffPatients(w http.ResponseWriter, r *http.Request, sess session) {
	s.renderStaffPatients(w, r, sess, http.StatusOK, patientForm{})
}

// handleStaffFindPatient finds patients by phone (in any format of the
// clinic's region), e-mail, or whole name with birth date, through their
// keyed hashes. A POST, so that the number or name is in no URL, history
// or log.
func (s *server) handleStaffFindPatient(w http.ResponseWriter, r *http.Request, sess session) {
	q := strings.TrimSpace(r.PostFormValue("find"))
	form := patientForm{Find: q, Searched: true, FindName: strings.TrimSpace(r.PostFormValue("findName")),
		FindBirth: strings.TrimSpace(r.PostFormValue("findBirth"))}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	var err error
	if q == "" && (form.FindName != "" || form.FindBirth != "") {
		if _, err := booking.CheckSignupProfile(booking.SignupProfile{Name: form.FindName, BirthDate: form.FindBirth}, s.now()); err != nil || form.FindBirth == "" {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "give the whole name and a past birth date"))
			return
		}
		form.Found, err = s.accounts.PatientsByName(ctx, form.FindName, form.FindBirth)
	} else if strings.Contains(q, "@") {
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
	s.renderStaffPatients(w, r, sess, http.StatusOK, form)
}

// patientForm is the registration form as typed, with the field in error,
// so that a mistake does not lose the rest.
type patientForm struct {
	Name, Phone, Email, BirthDate string
	Error                         string // "name", "phone", "phone-taken", "email" or "birthDate"
	// Find, or FindName with FindBirth, is a look-up as typed, Found what
	// it found.
	Find, FindName, FindBirth string
	Searched                  bool
	Found                     []booking.Patient
}

// renderStaffPatients renders the page; the list of every person is an
// admin's (booking.BrowsesPatients): the front desk finds by keys.
func (s *server) renderStaffPatients(w http.ResponseWriter, r *http.Request, sess session, status int, form patientForm) {
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	var ps []booking.Patient
	if booking.BrowsesPatients(sess.actor().Role) {
		var err error
		if ps, err = s.accounts.ListPatients(ctx, max(after, 0), patientsPerPage+1); err != nil {
			s.renderError(w, r, err)
			return
		}
	}
	data := struct {
		Patients []booking.Patient
		Next     int64
		Form     patientForm
		// Created is the person just registered, to book for.
		Created int64
	}{Patients: ps, Form: form}
	if len(ps) > patientsPerPage {
		data.Patients = ps[:patientsPerPage]
		data.Next = ps[patientsPerPage-1].ID
	}
	p := s.newPage(w, r, "Patients")
	if id := r.URL.Query().Get("created"); id != "" {
		p.Notice = p.T("Patient registered. They can now sign in with their phone number.")
		if n, err := strconv.ParseInt(id, 10, 64); err == nil && n > 0 {
			data.Created = n
		}
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
		case "birthDate":
			msg = p.T("The birth date must be a past date.")
		}
		p.Problem = &problemView{Code: string(booking.CodeInvalidRequest), Title: p.T("Please check the form"), Message: msg}
	}
	p.Data = data
	s.render(w, r, status, "staff_patients", p)
}

// handleStaffCreatePatient registers a person on the spot: a name, and a
// phone (a walk-in may have none), e-mail and birth date when given. The
// phone is never logged.
func (s *server) handleStaffCreatePatient(w http.ResponseWriter, r *http.Request, sess session) {
	name, ok := cleanName(r.PostFormValue("name"))
	phone := strings.TrimSpace(r.PostFormValue("phone"))
	email := strings.TrimSpace(r.PostFormValue("email"))
	birth := strings.TrimSpace(r.PostFormValue("birthDate"))
	form := patientForm{Name: r.PostFormValue("name"), Phone: phone, Email: email, BirthDate: birth}
	_, birthErr := booking.CheckSignupProfile(booking.SignupProfile{Name: "-", BirthDate: birth}, s.now())
	switch {
	case !ok:
		form.Error = "name"
	case phone != "" && s.svc.NormalizePhone(phone) == "":
		form.Error = "phone"
	case birthErr != nil:
		form.Error = "birthDate"
	case len(email) > 254 || (email != "" && !strings.Contains(email, "@")):
		form.Error = "email"
	}
	if form.Error != "" {
		s.renderStaffPatients(w, r, sess, http.StatusBadRequest, form)
		return
	}
	p, err := s.svc.CreatePatient(r.Context(), booking.Patient{Name: name, Phone: phone, Email: email, BirthDate: birth})
	if err != nil {
		if booking.ErrorCode(err) == booking.CodeConflict {
			// A phone is one patient's (its keyed hash is unique).
			form.Error = "phone-taken"
			s.renderStaffPatients(w, r, sess, http.StatusConflict, form)
			return
		}
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/patients?created="+itoa(p.ID))
}
