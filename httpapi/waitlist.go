package httpapi

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// waitlistRequest is the body of POST /api/waitlist.
type waitlistRequest struct {
	PatientID    int64   `json:"patientId"`
	DoctorID     int64   `json:"doctorId"`
	DepartmentID int64   `json:"departmentId"`
	From         instant `json:"from"`
	To           instant `json:"to"`
	PartOfDay    string  `json:"partOfDay"`
	// PartySize (or PatientIDs, the people of the account) makes the
	// entry a party's: offered that many places at once.
	PartySize  int     `json:"partySize"`
	PatientIDs []int64 `json:"patientIds"`
}

// waitlistPatient returns whose waitlist a request acts on: the token's
// patient's, or that of the person it names (named, 0 for none) whom the
// patient's account manages (service.ActFor; any other id is not found).
// Staff have no waitlist.
func (s *server) waitlistPatient(r *http.Request, c auth.Claims, named int64) (int64, error) {
	if _, ok := c.PatientID(); !ok {
		return 0, errorf(booking.CodeForbidden, "only patients have a waitlist")
	}
	acting, err := s.svc.ActFor(r.Context(), actorOf(c), named)
	return acting.PatientID, err
}

// queriedPatient is whom a waitlist request without a body acts for: the
// optional ?patientId= (a person of the account; none: the account), as
// waitlistPatient allows.
func (s *server) queriedPatient(r *http.Request, c auth.Claims, q map[string]string) (int64, error) {
	var named int64
	if v, ok := q["patientId"]; ok {
		id, err := parseID(v, "patientId")
		if err != nil {
			return 0, err
		}
		named = id
	}
	return s.waitlistPatient(r, c, named)
}

// entryOf reads a request on one entry, {id}: the entry's id and whom it
// acts for (queriedPatient).
func (s *server) entryOf(r *http.Request, c auth.Claims) (id, patient int64, err error) {
	if id, err = pathID(r, "id"); err != nil {
		return 0, 0, err
	}
	q, err := parseQuery(r, "patientId")
	if err != nil {
		return 0, 0, err
	}
	patient, err = s.queriedPatient(r, c, q)
	return id, patient, err
}

// joinWaitlist adds an entry: 201 with its position, 200 for a retry.
func (s *server) joinWaitlist(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	if _, ok := c.PatientID(); !ok {
		return errorf(booking.CodeForbidden, "only patients have a waitlist")
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in waitlistRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.PatientID != 0 && !validID(in.PatientID) {
		return fieldErrorf("/patientId", "patientId must be an id 1 to %d", int64(booking.MaxID))
	}
	if in.PartySize < 0 || in.PartySize > booking.MaxGroup {
		return fieldErrorf("/partySize", "partySize must be 1 to %d", booking.MaxGroup)
	}
	if len(in.PatientIDs) > booking.MaxGroup {
		return fieldErrorf("/patientIds", "patientIds must list at most %d people", booking.MaxGroup)
	}
	for _, id := range in.PatientIDs {
		if !validID(id) {
			return fieldErrorf("/patientIds", "patientIds must be ids 1 to %d", int64(booking.MaxID))
		}
	}
	if part, ok := enumValue(in.PartOfDay, booking.PartMorning, booking.PartAfternoon, booking.PartAny); ok {
		in.PartOfDay = part
	}
	if in.DoctorID != 0 && !validID(in.DoctorID) || in.DepartmentID != 0 && !validID(in.DepartmentID) {
		return errorf(booking.CodeInvalidRequest, "doctorId and departmentId must be ids 1 to %d", int64(booking.MaxID))
	}
	patient, err := s.waitlistPatient(r, c, in.PatientID)
	if err != nil {
		return err
	}
	e, existed, err := s.svc.JoinWaitlist(r.Context(), booking.WaitlistEntry{PatientID: patient, DoctorID: in.DoctorID,
		DepartmentID: in.DepartmentID, From: in.From.Time, To: in.To.Time, PartOfDay: in.PartOfDay, IdempotencyKey: key,
		PartySize: in.PartySize, PatientIDs: in.PatientIDs})
	if err != nil {
		return err
	}
	if existed {
		writeJSON(w, http.StatusOK, e)
		return nil
	}
	w.Header().Set("Location", "/api/me/waitlist")
	writeJSON(w, http.StatusCreated, e)
	return nil
}

// myEntries answers a page of the caller's (or a person's, ?patientId=)
// entries as list reads them: GET /api/me/waitlist and /api/me/standby.
func (s *server) myEntries(list func(context.Context, int64) ([]booking.WaitlistEntry, error)) func(http.ResponseWriter, *http.Request, auth.Claims) error {
	return func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		q, err := parseQuery(r, withPage("patientId")...)
		if err != nil {
			return err
		}
		p, err := parsePage(q)
		if err != nil {
			return err
		}
		patient, err := s.queriedPatient(r, c, q)
		if err != nil {
			return err
		}
		// A patient's entries are bounded by the store (its newest 200,
		// newest first): read whole, paged here.
		es, err := list(r.Context(), patient)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, pageAfter(es, p, entryKey, false))
		return nil
	}
}

// leaveEntry leaves the caller's (or a person's) entry {id} with leave:
// DELETE /api/waitlist/{id} and /api/standby/{id}.
func (s *server) leaveEntry(leave func(context.Context, int64, int64) (booking.WaitlistEntry, error)) func(http.ResponseWriter, *http.Request, auth.Claims) error {
	return func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		id, patient, err := s.entryOf(r, c)
		if err != nil {
			return err
		}
		e, err := leave(r.Context(), id, patient)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, e)
		return nil
	}
}

// offerAnswer is the answer to accept and decline: the entry and the
// offer's appointment as they are now.
type offerAnswer struct {
	Entry       booking.WaitlistEntry `json:"entry"`
	Appointment booking.Appointment   `json:"appointment"`
}

func (s *server) answerOffer(accept bool) func(http.ResponseWriter, *http.Request, auth.Claims) error {
	return func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		id, patient, err := s.entryOf(r, c)
		if err != nil {
			return err
		}
		e, a, err := s.svc.AnswerOffer(r.Context(), id, patient, accept)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, offerAnswer{Entry: e, Appointment: a})
		return nil
	}
}

// doctorOffers lists the running waitlist offers of a doctor's slots
// starting in [from, to) (default: the next 24 hours), for staff.
func (s *server) doctorOffers(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	// Another site's doctor is not found for an admin limited to sites.
	if err := s.svc.OnSite(r.Context(), actorOf(c), booking.SiteRef{DoctorID: id}); err != nil {
		return err
	}
	q, err := parseQuery(r, withPage("from", "to")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	from := s.now().UTC()
	to := from.Add(24 * time.Hour)
	for name, dst := range map[string]*time.Time{"from": &from, "to": &to} {
		if v, ok := q[name]; ok {
			t, err := parseInstant(v, name, name == "to", s.zone)
			if err != nil {
				return err
			}
			*dst = t
		}
	}
	if !from.Before(to) || to.Sub(from) > 31*24*time.Hour {
		return errorf(booking.CodeInvalidRequest, "from must be before to, at most 31 days apart")
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	// One doctor's offers over at most 31 days: read whole, paged by id.
	es, err := s.store.ListOffers(ctx, id, from, to)
	if err != nil {
		return storeErr(ctx, err)
	}
	slices.SortFunc(es, func(a, b booking.WaitlistEntry) int { return cmp.Compare(a.ID, b.ID) })
	writeJSON(w, http.StatusOK, pageAfter(es, p, entryKey, true))
	return nil
}

// entryKey is the key a page of waiting-list entries resumes from.
func entryKey(e booking.WaitlistEntry) int64 { return e.ID }
