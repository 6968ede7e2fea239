package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
)

// A vaccination campaign (docs/campaigns.md): a schedule's eligibility
// rule, the cohorts' import and the invitation batches, admin only.

// cohortsImportPath takes a CSV file, up to csvdata.MaxImportBytes, like
// importPath.
const cohortsImportPath = "/api/admin/cohorts/import"

func (s *server) eligibilityRoutes() {
	s.handle("GET /api/admin/schedules/{id}/eligibility", s.admin(s.getEligibility))
	s.handle("PUT /api/admin/schedules/{id}/eligibility", s.admin(s.putEligibility))
	s.handle("DELETE /api/admin/schedules/{id}/eligibility", s.admin(s.deleteEligibility))
	s.handle("GET /api/admin/services/{id}/eligibility", s.admin(s.getServiceEligibility))
	s.handle("PUT /api/admin/services/{id}/eligibility", s.admin(s.putServiceEligibility))
	s.handle("DELETE /api/admin/services/{id}/eligibility", s.admin(s.deleteServiceEligibility))
	s.handle("POST "+cohortsImportPath, s.admin(s.importCohorts))
	s.handle("POST /api/admin/invitations", s.admin(s.createInvitations))
}

// eligibilityBody is the body of PUT .../eligibility: the whole rule.
type eligibilityBody struct {
	MinAge             *int       `json:"minAge"`
	MaxAge             *int       `json:"maxAge"`
	Cohorts            []string   `json:"cohorts"`
	InvitationRequired bool       `json:"invitationRequired"`
	ReservePlaces      int        `json:"reservePlaces"`
	ReserveCohort      string     `json:"reserveCohort"`
	ReserveUntil       *time.Time `json:"reserveUntil"`
}

func (s *server) getEligibility(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rule, err := s.svc.Eligibility(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rule)
	return nil
}

func (s *server) putEligibility(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in eligibilityBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	rule, err := s.svc.SetEligibility(r.Context(), booking.EligibilityRule{ScheduleID: id, MinAge: in.MinAge, MaxAge: in.MaxAge,
		Cohorts: in.Cohorts, InvitationRequired: in.InvitationRequired, ReservePlaces: in.ReservePlaces,
		ReserveCohort: in.ReserveCohort, ReserveUntil: in.ReserveUntil}, false)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rule)
	return nil
}

func (s *server) deleteEligibility(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := s.svc.SetEligibility(r.Context(), booking.EligibilityRule{ScheduleID: id}, true); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// serviceEligibilityBody is the body of PUT /api/admin/services/{id}/eligibility:
// the whole rule (who the person is; codes and reserves are a schedule's).
type serviceEligibilityBody struct {
	MinAge  *int     `json:"minAge"`
	MaxAge  *int     `json:"maxAge"`
	Cohorts []string `json:"cohorts"`
}

func (s *server) getServiceEligibility(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	rule, err := s.svc.ServiceEligibility(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rule)
	return nil
}

func (s *server) putServiceEligibility(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in serviceEligibilityBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	rule, err := s.svc.SetServiceEligibility(r.Context(), booking.ServiceRule{ServiceID: id, MinAge: in.MinAge, MaxAge: in.MaxAge,
		Cohorts: in.Cohorts}, false)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rule)
	return nil
}

func (s *server) deleteServiceEligibility(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := s.svc.SetServiceEligibility(r.Context(), booking.ServiceRule{ServiceID: id}, true); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// importCohorts adds the patients' cohort tags of a CSV file (header
// patient_id,tag): the valid lines in one transaction, the refused ones
// reported by line. A patient that does not exist refuses the import.
func (s *server) importCohorts(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if ct := r.Header.Get("Content-Type"); len(ct) < 8 || ct[:8] != "text/csv" {
		return errorf(booking.CodeInvalidRequest, "the body must be text/csv")
	}
	rows, rep, err := csvdata.ReadCohorts(r.Body)
	if err != nil {
		return bodyOrErr(err)
	}
	if rep.Added, err = s.svc.ImportCohorts(r.Context(), rows); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// createInvitations makes a batch of codes for a schedule and answers them
// as CSV for the letters: the codes are shown this once (only their keyed
// hashes are kept).
func (s *server) createInvitations(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	var in struct {
		Count      int   `json:"count"`
		ScheduleID int64 `json:"scheduleId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if !validID(in.ScheduleID) {
		return fieldErrorf("/scheduleId", "scheduleId must be an id 1 to %d", int64(booking.MaxID))
	}
	codes, err := s.svc.CreateInvitations(r.Context(), in.ScheduleID, in.Count)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="invitations-`+strconv.FormatInt(in.ScheduleID, 10)+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	return csvdata.WriteInvitations(w, in.ScheduleID, codes)
}

// invitationOf checks a request's invitation code (nil: none): at most 32
// letters, digits, spaces and dashes.
func invitationOf(code *string, pointer string) (string, error) {
	if code == nil {
		return "", nil
	}
	if !booking.ValidInvitation(*code) {
		return "", fieldErrorf(pointer, "invitation must be 1 to 32 letters, digits, spaces or dashes")
	}
	return *code, nil
}
