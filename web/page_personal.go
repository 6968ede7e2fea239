package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slotd/slotd/booking"
)

// A patient's personal data (docs/personal-data.md): the patient's "My data" download,
// and the staff's export and erasure of a patient. Each goes through the
// Service, which records it in the audit log.

// handleMyData downloads the signed-in patient's data and history as JSON.
func (s *server) handleMyData(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.requirePatient(w, r, "/history")
	if !ok {
		return
	}
	s.writeExport(w, r, sess.PatientID)
}

// handleStaffPatientData downloads a patient's data for the staff.
func (s *server) handleStaffPatientData(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.handleNotFound(w, r)
		return
	}
	s.writeExport(w, r, id)
}

func (s *server) writeExport(w http.ResponseWriter, r *http.Request, id int64) {
	ex, err := s.svc.ExportPatient(r.Context(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="patient-`+strconv.FormatInt(id, 10)+`-data.json"`)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(ex)
}

// eraseData is the erasure page's: the patient and the reason as typed.
type eraseData struct {
	Patient booking.Patient
	Reason  string
}

// handleStaffEraseConfirm is the confirmation step of an erasure: who, and
// the reason to give.
func (s *server) handleStaffEraseConfirm(w http.ResponseWriter, r *http.Request, _ session) {
	s.renderErase(w, r, http.StatusOK, "", false)
}

func (s *server) renderErase(w http.ResponseWriter, r *http.Request, status int, reason string, missing bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.handleNotFound(w, r)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	p, err := s.store.GetPatient(ctx, id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	pg := s.newPage(w, r, "Erase a patient's personal data")
	if missing {
		pg.Problem = &problemView{Code: string(booking.CodeInvalidRequest), Title: pg.T("Please check the form"),
			Message: pg.T("Give the reason for the erasure (up to 500 characters).")}
	}
	pg.Data = eraseData{Patient: p, Reason: reason}
	s.render(w, r, status, "staff_erase", pg)
}

// handleStaffErase erases a patient's personal data for the reason given.
func (s *server) handleStaffErase(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.handleNotFound(w, r)
		return
	}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if reason == "" || utf8.RuneCountInString(reason) > booking.MaxEraseReason {
		s.renderErase(w, r, http.StatusBadRequest, r.PostFormValue("reason"), true)
		return
	}
	if _, err := s.svc.ErasePatient(r.Context(), id, reason); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/patients?erased=1")
}
