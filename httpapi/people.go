package httpapi

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// personRequest is the body of POST /api/me/people and PATCH
// /api/me/people/{id} (where every member is optional and consent unused).
type personRequest struct {
	Name      *string `json:"name"`
	BirthDate *string `json:"birthDate"`
	Sex       *string `json:"sex"`
	Relation  *string `json:"relation"`
	Consent   bool    `json:"consent"`
	// NationalID is asked where the clinic registers real names.
	NationalID *string `json:"nationalId"`
}

// ownPatient is the token's own patient, for what a patient only does for
// themselves (their people, a lottery registration, a place in an
// opening's queue); anyone else is refused, saying why.
func ownPatient(c auth.Claims, why string) (int64, error) {
	if id, ok := c.PatientID(); ok && c.Role == auth.RolePatient {
		return id, nil
	}
	return 0, errorf(booking.CodeForbidden, "%s", why)
}

// accountOf returns the token's patient: the account whose people these
// are; staff have none.
func accountOf(c auth.Claims) (int64, error) { return ownPatient(c, "only patients manage people") }

// myPeople is GET /api/me/people: the account and the people it manages,
// the account first, paged.
func (s *server) myPeople(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	account, err := accountOf(c)
	if err != nil {
		return err
	}
	q, err := parseQuery(r, withPage()...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	ps, err := s.svc.People(r.Context(), account, p.store())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageOf(ps, p, func(p booking.Patient) int64 { return p.ID }))
	return nil
}

// addPerson is POST /api/me/people: 201 with the new person; beyond the
// clinic's maxPeople a 409.
func (s *server) addPerson(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	account, err := accountOf(c)
	if err != nil {
		return err
	}
	var in personRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, err := s.svc.AddPerson(r.Context(), account, booking.PersonInput{Name: deref(in.Name), BirthDate: deref(in.BirthDate),
		Sex: deref(in.Sex), Relation: deref(in.Relation), Consent: in.Consent, NationalID: deref(in.NationalID)})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/me/people/"+strconv.FormatInt(p.ID, 10))
	writeJSON(w, http.StatusCreated, p)
	return nil
}

// updatePerson is PATCH /api/me/people/{id}.
func (s *server) updatePerson(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	account, err := accountOf(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in personRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Name == nil && in.BirthDate == nil && in.Sex == nil && in.Relation == nil && in.NationalID == nil {
		return errorf(booking.CodeInvalidRequest, "give name, birthDate, sex, relation or nationalId")
	}
	p, err := s.svc.UpdatePerson(r.Context(), account, id, service.PersonPatch{Name: in.Name, BirthDate: in.BirthDate, Sex: in.Sex, Relation: in.Relation, NationalID: in.NationalID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// removePerson is DELETE /api/me/people/{id}: 204; refused (409) while the
// person holds an active appointment.
func (s *server) removePerson(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	account, err := accountOf(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := s.svc.RemovePerson(r.Context(), account, id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deref is *p, "" for nil.
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
