package web

import (
	"net/http"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// staffPatientData is the staff page of one patient: the patient, the
// account that manages them (a person's), and the people of the account
// (the account first).
type staffPatientData struct {
	Patient booking.Patient
	Account *booking.Patient
	People  []booking.Patient
}

// handleStaffPatient shows staff a patient grouped with their account: an
// account lists the people it manages, a person names their account; each
// links to their messages, export and erasure.
func (s *server) handleStaffPatient(w http.ResponseWriter, r *http.Request, _ session) {
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
	d := staffPatientData{Patient: p}
	account := p.ID
	if p.ManagerID != 0 {
		a, err := s.store.GetPatient(ctx, p.ManagerID)
		if err != nil {
			s.renderError(w, r, err)
			return
		}
		d.Account, account = &a, a.ID
	}
	// An account's people are bounded by the policy's limit: one page.
	if d.People, err = s.svc.People(r.Context(), account, booking.Page{Limit: booking.MaxPeopleLimit + 1}); err != nil {
		s.renderError(w, r, err)
		return
	}
	pg := s.newPage(w, r, "Patient")
	pg.Data = d
	s.render(w, r, http.StatusOK, "staff_patient", pg)
}
