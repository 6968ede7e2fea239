package web

import (
	"net/http"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// peopleOf lists the account and the people it manages (the account
// first), or nil when they cannot be read: the pages then offer booking
// for the account alone.
func (s *server) peopleOf(r *http.Request, account int64) []booking.Patient {
	ps, err := s.svc.People(r.Context(), account, booking.Page{Limit: booking.MaxPeopleLimit + 1})
	if err != nil {
		return nil
	}
	return ps
}

// handlePeople is the People page: the account and the people it
// manages, each editable and removable, and a form to add one.
func (s *server) handlePeople(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, r.URL.Path)
	if !ok {
		return
	}
	ps, err := s.svc.People(r.Context(), sess.PatientID, booking.Page{Limit: booking.MaxPeopleLimit + 1})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	pol, err := s.svc.ClinicPolicy(r.Context())
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "People")
	switch {
	case r.URL.Query().Has("added"):
		p.Notice = p.T("The person is added.")
	case r.URL.Query().Has("saved"):
		p.Notice = p.T("Saved.")
	case r.URL.Query().Has("removed"):
		p.Notice = p.T("The person is removed.")
	}
	p.Data = struct {
		People    []booking.Patient
		Max       int
		CanAdd    bool
		Relations []string
		Today     string
		RealName  bool // the clinic asks for national ID numbers
	}{ps, pol.MaxPeople, len(ps) < pol.MaxPeople, booking.PersonRelations, s.now().Format("2006-01-02"), pol.RequireNationalID}
	s.render(w, r, http.StatusOK, "people", p)
}

// handlePersonAdd adds a person (Service.AddPerson) from the People page's form.
func (s *server) handlePersonAdd(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	_, err := s.svc.AddPerson(r.Context(), sess.PatientID, booking.PersonInput{Name: r.PostFormValue("name"),
		BirthDate: r.PostFormValue("birthDate"), Sex: r.PostFormValue("sex"), Relation: r.PostFormValue("relation"),
		Consent: r.PostFormValue("consent") == "yes", NationalID: r.PostFormValue("nationalId")})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/people?added=1")
}

// handlePersonAction saves (edit) or removes (remove) a person the
// account manages.
func (s *server) handlePersonAction(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.patientForm(w, r)
	if !ok {
		return
	}
	id, err := pathID(r, "id")
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	switch r.PathValue("action") {
	case "edit":
		name, birth, rel := r.PostFormValue("name"), r.PostFormValue("birthDate"), r.PostFormValue("relation")
		patch := service.PersonPatch{Name: &name, BirthDate: &birth, Relation: &rel}
		if r.PostForm.Has("nationalId") { // the form shows the field only where it applies
			nid := r.PostFormValue("nationalId")
			patch.NationalID = &nid
		}
		_, err = s.svc.UpdatePerson(r.Context(), sess.PatientID, id, patch)
		if err == nil {
			redirect(w, r, "/people?saved=1")
			return
		}
	case "remove":
		if _, err = s.svc.RemovePerson(r.Context(), sess.PatientID, id); err == nil {
			redirect(w, r, "/people?removed=1")
			return
		}
	default:
		err = booking.NotFound("page")
	}
	s.renderError(w, r, err)
}
