package httpapi

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// A patient's personal data (docs/personal-data.md): the patient's own export, the
// staff's export and erasure. Each goes through the Service, which records
// it in the audit log.

// myData is GET /api/me/data: the signed-in patient's data and history.
func (s *server) myData(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, ok := c.PatientID()
	if !ok {
		return errorf(booking.CodeForbidden, "only patients have their own data")
	}
	return s.writeExport(w, r, patient)
}

// patientData is GET /api/admin/patients/{id}/data.
func (s *server) patientData(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	return s.writeExport(w, r, id)
}

func (s *server) writeExport(w http.ResponseWriter, r *http.Request, id int64) error {
	ex, err := s.svc.ExportPatient(r.Context(), id)
	if err != nil {
		return err
	}
	// A download of personal data: kept out of caches, saved as a file.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="patient-`+strconv.FormatInt(id, 10)+`-data.json"`)
	writeJSON(w, http.StatusOK, exportView{PatientExport: ex, History: auditViews(ex.History)})
	return nil
}

// exportView is a patient's export as the API answers it: the history's
// states are JSON objects, as in the audit log's pages.
type exportView struct {
	booking.PatientExport
	History []auditView `json:"history"`
}

// erasePatient is DELETE /api/admin/patients/{id} with {"reason"}.
func (s *server) erasePatient(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Reason string `json:"reason"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(in.Reason)); n == 0 || n > booking.MaxEraseReason {
		return errorf(booking.CodeInvalidRequest, "reason is required (1 to 500 characters)")
	}
	p, err := s.svc.ErasePatient(r.Context(), id, in.Reason)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}
