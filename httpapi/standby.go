package httpapi

import (
	"net/http"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Standby for leftover doses (booking/standby.go): a patient's opt-in at a
// site, their list and leaving it; the offers are answered as the
// waitlist's (POST /api/waitlist/{id}/accept and /decline). Admins set a
// site's policy; the front desk counts a day's standbys.

// standbyRequest is the body of POST /api/standby.
type standbyRequest struct {
	PatientID int64   `json:"patientId"`
	SiteID    int64   `json:"siteId"`
	From      instant `json:"from"`
	To        instant `json:"to"`
}

// joinStandby opts in: 201 with the standby, 200 for a retry.
func (s *server) joinStandby(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	if _, ok := c.PatientID(); !ok {
		return errorf(booking.CodeForbidden, "only patients stand by for leftover doses")
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in standbyRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.PatientID != 0 && !validID(in.PatientID) {
		return fieldErrorf("/patientId", "patientId must be an id 1 to %d", int64(booking.MaxID))
	}
	if !validID(in.SiteID) {
		return fieldErrorf("/siteId", "siteId must be an id 1 to %d", int64(booking.MaxID))
	}
	patient, err := s.waitlistPatient(r, c, in.PatientID)
	if err != nil {
		return err
	}
	e, existed, err := s.svc.JoinStandby(r.Context(), booking.WaitlistEntry{PatientID: patient, SiteID: in.SiteID,
		From: in.From.Time, To: in.To.Time, IdempotencyKey: key})
	if err != nil {
		return err
	}
	if existed {
		writeJSON(w, http.StatusOK, e)
		return nil
	}
	w.Header().Set("Location", "/api/me/standby")
	writeJSON(w, http.StatusCreated, e)
	return nil
}

func (s *server) getStandbyPolicy(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	p, err := s.svc.StandbyPolicy(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// standbyPolicyBody is the body of PUT /api/admin/sites/{id}/standby-policy.
type standbyPolicyBody struct {
	Enabled     bool `json:"enabled"`
	HoldMinutes *int `json:"holdMinutes"`
	AtOnce      int  `json:"atOnce"`
}

func (s *server) putStandbyPolicy(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in standbyPolicyBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p := booking.StandbyPolicy{SiteID: id, Enabled: in.Enabled, HoldMinutes: booking.DefaultLeftoverHoldMinutes, AtOnce: in.AtOnce}
	if in.HoldMinutes != nil {
		p.HoldMinutes = *in.HoldMinutes
	}
	p, err = s.svc.SetStandbyPolicy(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// standbyDay counts a site's standbys for a local day, for the desk.
func (s *server) standbyDay(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	d, err := s.svc.StandbyDay(r.Context(), id, r.PathValue("date"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}
