package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// The staff's clinic page (docs/clinic.md): the clinic's booking policy and the
// closures of a doctor, a department or the whole clinic, with their
// lifting. Visible text is in templates/staff_clinic.html; times are in
// the clinic's zone, as on every page.

// closureRow is a suspension as the page lists it: its target by name and
// its period in the clinic's zone and the page's language.
type closureRow struct {
	booking.Suspension
	Target   string
	From, To string
	Lifted   bool
}

type staffClinicData struct {
	Policy      booking.Policy
	Departments []booking.Department
	Doctors     []booking.Doctor
	Closures    []closureRow
	// Sites are the sites a staff account may be limited to.
	Sites []booking.Site
	// Done names what the previous form did, for the template's notice;
	// User is the staff user whose sites were saved.
	Done   string
	Closed int
	User   string
}

func (s *server) handleStaffClinic(w http.ResponseWriter, r *http.Request, _ session) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	var d staffClinicData
	var sus []booking.Suspension
	var err error
	if d.Policy, err = s.svc.ClinicPolicy(ctx); err == nil {
		if d.Departments, err = s.store.ListAllDepartments(ctx, booking.Page{}); err == nil {
			if d.Doctors, err = s.store.ListDoctors(ctx, 0, booking.Page{}); err == nil {
				if sus, err = s.svc.ListSuspensions(ctx, false); err == nil {
					d.Sites, err = s.store.ListSites(ctx, booking.Page{Limit: booking.MaxStaffSites})
				}
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
	if d.Done == "staffsites" {
		d.User = q.Get("user")
	}
	p := s.newPage(w, r, "Clinic")
	names := map[string]string{}
	for _, dep := range d.Departments {
		names["department"+strconv.FormatInt(dep.ID, 10)] = dep.Name
	}
	for _, doc := range d.Doctors {
		names["doctor"+strconv.FormatInt(doc.ID, 10)] = doc.Name
	}
	for _, c := range sus {
		row := closureRow{Suspension: c, Lifted: c.LiftedAt != nil,
			From: p.pr.DateTime(c.From.In(s.clinicZone)), To: p.pr.DateTime(c.To.In(s.clinicZone))}
		id := c.DoctorID
		if c.Scope == booking.ScopeDepartment {
			id = c.DepartmentID
		}
		// A deactivated doctor is not listed: its id stands for its name.
		if row.Target = names[c.Scope+strconv.FormatInt(id, 10)]; row.Target == "" {
			row.Target = "#" + strconv.FormatInt(id, 10)
		}
		d.Closures = append(d.Closures, row)
	}
	p.Data = d
	s.render(w, r, http.StatusOK, "staff_clinic", p)
}

func (s *server) handleStaffPolicy(w http.ResponseWriter, r *http.Request, _ session) {
	var p booking.Policy
	for _, f := range []struct {
		name string
		dst  *int
	}{{"maxActive", &p.MaxActive}, {"maxPerDay", &p.MaxPerDay}, {"cancelCutoffHours", &p.CancelCutoffHours},
		{"noShowLimit", &p.NoShowLimit}, {"noShowBlockDays", &p.NoShowBlockDays},
		{"refundFullHours", &p.RefundFullHours}, {"refundPartialPercent", &p.RefundPartialPercent}, {"refundPartialHours", &p.RefundPartialHours},
		{"checkInBeforeMinutes", &p.CheckInBeforeMinutes}, {"checkInAfterMinutes", &p.CheckInAfterMinutes},
		{"noShowGraceMinutes", &p.NoShowGraceMinutes}, {"queueSkipCalls", &p.QueueSkipCalls}, {"queueNotifyAhead", &p.QueueNotifyAhead}, {"maxPeople", &p.MaxPeople},
		{"walkInsPerSlot", &p.WalkInsPerSlot}} {
		v, err := strconv.Atoi(r.PostFormValue(f.name))
		if err != nil {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "%s", f.name))
			return
		}
		*f.dst = v
	}
	p.RequireNationalID = r.PostFormValue("requireNationalId") == "yes"
	p.PublicOpeningSummary = r.PostFormValue("publicOpeningSummary") == "yes"
	if _, err := s.svc.SetClinicPolicy(r.Context(), p); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/clinic?done=policy")
}

// handleStaffClosure closes a period, read in the clinic's zone (the one
// the page names).
func (s *server) handleStaffClosure(w http.ResponseWriter, r *http.Request, _ session) {
	sus := booking.Suspension{Scope: r.PostFormValue("scope")}
	loc := s.clinicZone
	switch sus.Scope {
	case booking.ScopeDoctor:
		sus.DoctorID, _ = strconv.ParseInt(r.PostFormValue("doctor"), 10, 64)
	case booking.ScopeDepartment:
		sus.DepartmentID, _ = strconv.ParseInt(r.PostFormValue("department"), 10, 64)
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

// handleStaffSites limits a staff account to the sites ticked (none: every
// site): the Service refuses an admin limited to sites, audits the change
// and ends the account's sessions.
func (s *server) handleStaffSites(w http.ResponseWriter, r *http.Request, _ session) {
	name := strings.TrimSpace(r.PostFormValue("user"))
	if err := r.ParseForm(); err != nil || len(r.PostForm["site"]) > booking.MaxStaffSites {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "sites"))
		return
	}
	var sites []int64
	for _, v := range r.PostForm["site"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "sites"))
			return
		}
		sites = append(sites, id)
	}
	if _, err := s.svc.SetStaffSites(r.Context(), name, sites); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/clinic?done=staffsites&user="+url.QueryEscape(name))
}
