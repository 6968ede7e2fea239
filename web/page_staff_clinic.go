package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
)

// The staff's clinic page (issue 15): the clinic's booking policy and the
// closures of a doctor, a department or the whole clinic, with their
// lifting. Visible text is in templates/staff_clinic.html.

type staffClinicData struct {
	Policy      booking.Policy
	Departments []booking.Department
	Doctors     []booking.Doctor
	Closures    []booking.Suspension
	// Done names what the previous form did, for the template's notice.
	Done   string
	Closed int
}

func (s *server) handleStaffClinic(w http.ResponseWriter, r *http.Request, _ session) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	var d staffClinicData
	var err error
	if d.Policy, err = s.svc.ClinicPolicy(ctx); err == nil {
		if d.Departments, err = s.store.ListDepartments(ctx); err == nil {
			if d.Doctors, err = s.store.ListDoctors(ctx, 0); err == nil {
				d.Closures, err = s.svc.ListSuspensions(ctx, false)
			}
		}
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	q := r.URL.Query()
	d.Done = q.Get("done")
	d.Closed, _ = strconv.Atoi(q.Get("n"))
	p := s.newPage(w, r, "Clinic")
	p.Data = d
	s.render(w, r, http.StatusOK, "staff_clinic", p)
}

func (s *server) handleStaffPolicy(w http.ResponseWriter, r *http.Request, _ session) {
	var p booking.Policy
	for _, f := range []struct {
		name string
		dst  *int
	}{{"maxActive", &p.MaxActive}, {"maxPerDay", &p.MaxPerDay}, {"cancelCutoffHours", &p.CancelCutoffHours},
		{"noShowLimit", &p.NoShowLimit}, {"noShowBlockDays", &p.NoShowBlockDays}} {
		v, err := strconv.Atoi(r.PostFormValue(f.name))
		if err != nil {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "%s", f.name))
			return
		}
		*f.dst = v
	}
	if _, err := s.svc.SetClinicPolicy(r.Context(), p); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/clinic?done=policy")
}

// handleStaffClosure closes a period, read as local times of the clinic's
// first doctor (of the department, or the doctor's own for a doctor).
func (s *server) handleStaffClosure(w http.ResponseWriter, r *http.Request, _ session) {
	sus := booking.Suspension{Scope: r.PostFormValue("scope")}
	ctx, cancel := s.storeCtx(r.Context())
	docs, err := s.store.ListDoctors(ctx, 0)
	cancel()
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	loc := time.UTC
	switch sus.Scope {
	case booking.ScopeDoctor:
		sus.DoctorID, _ = strconv.ParseInt(r.PostFormValue("doctor"), 10, 64)
	case booking.ScopeDepartment:
		sus.DepartmentID, _ = strconv.ParseInt(r.PostFormValue("department"), 10, 64)
	}
	for _, d := range docs {
		if (sus.DoctorID == 0 || d.ID == sus.DoctorID) && (sus.DepartmentID == 0 || d.DepartmentID == sus.DepartmentID) {
			if l, err := d.Location(); err == nil {
				loc = l
			}
			break
		}
	}
	from, err1 := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("from"), loc)
	to, err2 := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("to"), loc)
	reason, ok := cleanName(r.PostFormValue("reason"))
	if err := booking.ScopeRefusal(sus); err != nil || err1 != nil || err2 != nil || !ok || !from.Before(to) {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "closure"))
		return
	}
	sus.From, sus.To, sus.Reason = from.UTC(), to.UTC(), reason
	res, err := s.svc.Suspend(r.Context(), sus)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/clinic?done=closed&n="+strconv.Itoa(res.SlotsClosed))
}

func (s *server) handleStaffLift(w http.ResponseWriter, r *http.Request, _ session) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		s.renderError(w, r, booking.Errorf(booking.CodeNotFound, "no such closure"))
		return
	}
	res, err := s.svc.LiftSuspension(r.Context(), id)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/clinic?done=lifted&n="+strconv.Itoa(res.SlotsReopened))
}
