package httpapi

import (
	"cmp"
	"net/http"
	"slices"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// waitlistRequest is the body of POST /api/waitlist.
type waitlistRequest struct {
	DoctorID     int64   `json:"doctorId"`
	DepartmentID int64   `json:"departmentId"`
	From         instant `json:"from"`
	To           instant `json:"to"`
	PartOfDay    string  `json:"partOfDay"`
}

// waitlistPatient returns the token's patient, or forbidden.
func waitlistPatient(c auth.Claims) (int64, error) {
	id, ok := c.PatientID()
	if !ok {
		return 0, errorf(booking.CodeForbidden, "only patients have a waitlist")
	}
	return id, nil
}

// joinWaitlist adds an entry: 201 with its position, 200 for a retry.
func (s *server) joinWaitlist(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := waitlistPatient(c)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	var in waitlistRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if part, ok := enumValue(in.PartOfDay, booking.PartMorning, booking.PartAfternoon, booking.PartAny); ok {
		in.PartOfDay = part
	}
	if in.DoctorID != 0 && !validID(in.DoctorID) || in.DepartmentID != 0 && !validID(in.DepartmentID) {
		return errorf(booking.CodeInvalidRequest, "doctorId and departmentId must be ids 1 to %d", int64(booking.MaxID))
	}
	e, existed, err := s.svc.JoinWaitlist(r.Context(), booking.WaitlistEntry{PatientID: patient, DoctorID: in.DoctorID,
		DepartmentID: in.DepartmentID, From: in.From.Time, To: in.To.Time, PartOfDay: in.PartOfDay, IdempotencyKey: key})
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

func (s *server) myWaitlist(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := waitlistPatient(c)
	if err != nil {
		return err
	}
	q, err := parseQuery(r, pageParams...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	// A patient's entries are bounded by the store (its newest 200, newest
	// first): read whole, paged here.
	es, err := s.svc.Waitlist(r.Context(), patient)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageAfter(es, p, entryKey, false))
	return nil
}

func (s *server) leaveWaitlist(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
	patient, err := waitlistPatient(c)
	if err != nil {
		return err
	}
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	if _, err := parseQuery(r); err != nil {
		return err
	}
	e, err := s.svc.LeaveWaitlist(r.Context(), id, patient)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}

// offerAnswer is the answer to accept and decline: the entry and the
// offer's appointment as they are now.
type offerAnswer struct {
	Entry       booking.WaitlistEntry `json:"entry"`
	Appointment booking.Appointment   `json:"appointment"`
}

func (s *server) answerOffer(accept bool) func(http.ResponseWriter, *http.Request, auth.Claims) error {
	return func(w http.ResponseWriter, r *http.Request, c auth.Claims) error {
		patient, err := waitlistPatient(c)
		if err != nil {
			return err
		}
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		if _, err := parseQuery(r); err != nil {
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
func (s *server) doctorOffers(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
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
