package httpapi

import (
	"net/http"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
)

// Running a clinic (docs/clinic.md): editing, policies, closures. Admin only;
// each handler checks its input and calls one Service method.

func (s *server) updateDepartment(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in struct {
		Name string `json:"name"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	name, err := cleanName(in.Name, "name")
	if err != nil {
		return err
	}
	d, err := s.svc.UpdateDepartment(r.Context(), booking.Department{ID: id, Name: name})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *server) updateDoctor(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var u booking.DoctorUpdate
	if err := decodeJSON(r, &u); err != nil {
		return err
	}
	if u.Name == nil && u.DepartmentID == nil && u.Active == nil && u.ProfileUpdate.Empty() {
		return errorf(booking.CodeInvalidRequest, "give name, departmentId, active, title, specialties, languages, bio or consultingRoom")
	}
	if u.Name != nil {
		n, err := cleanName(*u.Name, "name")
		if err != nil {
			return err
		}
		u.Name = &n
	}
	if u.DepartmentID != nil && !validID(*u.DepartmentID) {
		return errorf(booking.CodeInvalidRequest, "departmentId must be an id 1 to %d", int64(booking.MaxID))
	}
	d, err := s.svc.UpdateDoctor(r.Context(), id, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

func (s *server) updatePatient(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var u booking.PatientUpdate
	if err := decodeJSON(r, &u); err != nil {
		return err
	}
	if u.Name == nil && u.Phone == nil && u.Email == nil && u.Active == nil {
		return errorf(booking.CodeInvalidRequest, "give name, phone, email or active")
	}
	if u.Name != nil {
		n, err := cleanName(*u.Name, "name")
		if err != nil {
			return err
		}
		u.Name = &n
	}
	// Personal data: the messages below never echo the value; "" removes it.
	if u.Phone != nil {
		p := strings.TrimSpace(*u.Phone)
		if p != "" && !validPhone(p) {
			return errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
		}
		u.Phone = &p
	}
	if u.Email != nil {
		e := strings.TrimSpace(*u.Email)
		if e != "" && !booking.EmailOK(e) {
			return errorf(booking.CodeInvalidRequest, "email must be an e-mail address")
		}
		u.Email = &e
	}
	p, err := s.svc.UpdatePatient(r.Context(), id, u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// scheduleUpdateAnswer is an edited schedule with what its regeneration did.
type scheduleUpdateAnswer struct {
	booking.Schedule
	SlotsDeleted int `json:"slotsDeleted"`
	SlotsCreated int `json:"slotsCreated"`
}

// updateSchedule replaces a schedule (an endDate ends it) and regenerates
// its future slots that hold no appointment.
func (s *server) updateSchedule(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	var in scheduleRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	sc, err := in.schedule(0)
	if err != nil {
		return err
	}
	sc.ID = id
	sc, deleted, created, err := s.svc.UpdateSchedule(r.Context(), sc)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, scheduleUpdateAnswer{Schedule: sc, SlotsDeleted: deleted, SlotsCreated: created})
	return nil
}

func (s *server) getPolicy(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	p, err := s.svc.ClinicPolicy(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

func (s *server) setPolicy(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	// A body without the check-in window, the queue's skip re-entry and
	// message ahead or maxPeople (a client older than them) keeps their
	// defaults rather than closing check-in to the start minute, calling
	// a skipped patient at once, sending no message or letting an account
	// add nobody; walkInsPerSlot keeps its default too.
	p := booking.Policy{CheckInBeforeMinutes: booking.DefaultCheckInBeforeMinutes, CheckInAfterMinutes: booking.DefaultCheckInAfterMinutes,
		QueueSkipCalls: booking.DefaultQueueSkipCalls, QueueNotifyAhead: booking.DefaultQueueNotifyAhead, MaxPeople: booking.DefaultMaxPeople,
		WalkInsPerSlot: booking.DefaultWalkInsPerSlot}
	if err := decodeJSON(r, &p); err != nil {
		return err
	}
	p, err := s.svc.SetClinicPolicy(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// createClosure closes a doctor's, a department's or the whole clinic's
// period, through the suspension path.
func (s *server) createClosure(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	// The period's members are spelled out, not periodRequest embedded:
	// the decoder would name an embedded struct in a member's path
	// (periodRequest.from), and a problem must point at /from.
	var in struct {
		From         instant `json:"from"`
		To           instant `json:"to"`
		Reason       string  `json:"reason"`
		Scope        string  `json:"scope"`
		DoctorID     int64   `json:"doctorId"`
		DepartmentID int64   `json:"departmentId"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.DoctorID < 0 || in.DoctorID > booking.MaxID || in.DepartmentID < 0 || in.DepartmentID > booking.MaxID {
		return errorf(booking.CodeInvalidRequest, "doctorId and departmentId must be ids 1 to %d", int64(booking.MaxID))
	}
	if scope, ok := enumValue(in.Scope, booking.ScopeDoctor, booking.ScopeDepartment, booking.ScopeClinic); ok {
		in.Scope = scope
	}
	sus := booking.Suspension{Scope: in.Scope, DoctorID: in.DoctorID, DepartmentID: in.DepartmentID}
	if err := booking.ScopeRefusal(sus); err != nil {
		return err
	}
	return s.closePeriod(w, r, sus, periodRequest{From: in.From, To: in.To, Reason: in.Reason})
}

func (s *server) listSuspensions(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	q, err := parseQuery(r, withPage("standing")...)
	if err != nil {
		return err
	}
	p, err := parsePage(q)
	if err != nil {
		return err
	}
	standing := false
	switch q["standing"] {
	case "", "false":
	case "true":
		standing = true
	default:
		return errorf(booking.CodeInvalidRequest, "standing must be true or false")
	}
	// Bounded by the store (the newest 1000, newest first): paged here.
	ss, err := s.svc.ListSuspensions(r.Context(), standing)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pageAfter(ss, p, func(sus booking.Suspension) int64 { return sus.ID }, false))
	return nil
}

func (s *server) liftSuspension(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	res, err := s.svc.LiftSuspension(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}
