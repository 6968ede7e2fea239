package web

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// Editing (docs/clinic.md): a department's name, a doctor's name, department and
// activity, a patient's name, contact details and activity, and a
// schedule's end. Each form posts to one Service method; visible text is in
// templates/staff_edit.html and staff_doctor.html.

type staffEditData struct {
	Kind        string // "department", "doctor" or "patient"
	ID          int64
	Name        string
	Department  int64
	Departments []booking.Department
	Phone       string
	Email       string
	Active      bool
	Action      string
	// Profile is a doctor's, edited with it (one item a line).
	Profile booking.Profile
}

// editKind is the entity a /staff/{kinds}/{id}/edit path names ("" when
// it names none).
func editKind(r *http.Request) string {
	switch k := r.PathValue("kinds"); k {
	case "departments", "doctors", "patients":
		return strings.TrimSuffix(k, "s")
	}
	return ""
}

func pathInt(r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return id, err == nil && id > 0
}

func (s *server) handleStaffEdit(w http.ResponseWriter, r *http.Request, _ session) {
	kind := editKind(r)
	id, ok := pathInt(r, "id")
	if !ok {
		s.renderError(w, r, booking.NotFound(kind))
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	d := staffEditData{Kind: kind, ID: id, Active: true, Action: "/staff/" + kind + "s/" + strconv.FormatInt(id, 10) + "/edit"}
	var err error
	switch kind {
	case "department":
		var deps []booking.Department
		if deps, err = s.store.ListAllDepartments(ctx, booking.Page{}); err == nil {
			err = booking.NotFound("department")
			for _, dep := range deps {
				if dep.ID == id {
					d.Name, err = dep.Name, nil
				}
			}
		}
	case "doctor":
		var doc booking.Doctor
		if doc, err = s.store.GetDoctor(ctx, id); err == nil {
			d.Name, d.Department, d.Active, d.Profile = doc.Name, doc.DepartmentID, doc.Active, doc.Profile
			d.Departments, err = s.store.ListAllDepartments(ctx, booking.Page{})
		}
	case "patient":
		var pat booking.Patient
		if pat, err = s.store.GetPatient(ctx, id); err == nil {
			d.Name, d.Phone, d.Email, d.Active = pat.Name, pat.Phone, pat.Email, pat.Active
		}
	default:
		err = booking.NotFound("page")
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Edit")
	if r.URL.Query().Has("saved") {
		p.Notice = p.T("Saved.")
	}
	p.Data = d
	s.render(w, r, http.StatusOK, "staff_edit", p)
}

func (s *server) handleStaffEditPost(w http.ResponseWriter, r *http.Request, _ session) {
	kind := editKind(r)
	id, ok := pathInt(r, "id")
	if !ok {
		s.renderError(w, r, booking.NotFound(kind))
		return
	}
	name, nameOK := cleanName(r.PostFormValue("name"))
	active := r.PostFormValue("active") == "on"
	var err error
	switch {
	case !nameOK:
		err = booking.Errorf(booking.CodeInvalidRequest, "name")
	case kind == "department":
		_, err = s.svc.UpdateDepartment(r.Context(), booking.Department{ID: id, Name: name})
	case kind == "doctor":
		dep, _ := strconv.ParseInt(r.PostFormValue("department"), 10, 64)
		title, bio := r.PostFormValue("title"), r.PostFormValue("bio")
		specs, langs := formLines(r.PostFormValue("specialties")), formLines(r.PostFormValue("languages"))
		u := booking.DoctorUpdate{Name: &name, DepartmentID: &dep, Active: &active,
			ProfileUpdate: booking.ProfileUpdate{Title: &title, Specialties: &specs, Languages: &langs, Bio: &bio}}
		if room, ok := r.PostForm["consultingRoom"]; ok { // a form without the field leaves the room alone
			u.ConsultingRoom = &room[0]
		}
		_, err = s.svc.UpdateDoctor(r.Context(), id, u)
	case kind == "patient":
		phone, email := strings.TrimSpace(r.PostFormValue("phone")), strings.TrimSpace(r.PostFormValue("email"))
		if email != "" && !strings.Contains(email, "@") {
			err = booking.Errorf(booking.CodeInvalidRequest, "email")
			break
		}
		// "" removes the phone or e-mail; the Service normalizes a phone.
		_, err = s.svc.UpdatePatient(r.Context(), id, booking.PatientUpdate{Name: &name, Phone: &phone, Email: &email, Active: &active})
	default:
		err = booking.NotFound("page")
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/"+kind+"s/"+strconv.FormatInt(id, 10)+"/edit?saved=1")
}

// photoFormPattern is the doctor's photo form: multipart, and larger
// than other forms (postForm).
const photoFormPattern = "POST /staff/doctors/{id}/photo"

// handleStaffDoctorPhoto uploads a doctor's photo from the edit page
// (service.SetDoctorPhoto checks it), then shows the page again.
func (s *server) handleStaffDoctorPhoto(w http.ResponseWriter, r *http.Request, _ session) {
	id, ok := pathInt(r, "id")
	if !ok {
		s.renderError(w, r, booking.NotFound("doctor"))
		return
	}
	f, hdr, err := r.FormFile("photo")
	if err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "photo must be a JPEG or PNG image"))
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, booking.MaxPhotoBytes+1))
	if err == nil {
		_, err = s.svc.SetDoctorPhoto(r.Context(), id, hdr.Header.Get("Content-Type"), data)
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/doctors/"+strconv.FormatInt(id, 10)+"/edit?saved=1")
}

// formLines is a textarea's non-blank lines: a profile's list.
func formLines(v string) []string {
	out := []string{}
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// handleStaffScheduleEnd ends a schedule on a local day (empty: never):
// its free slots after it are removed, booked ones stay.
func (s *server) handleStaffScheduleEnd(w http.ResponseWriter, r *http.Request, _ session) {
	id, ok := pathInt(r, "id")
	doctor, dok := pathInt(r, "doctor")
	if !ok || !dok {
		s.renderError(w, r, booking.NotFound("schedule"))
		return
	}
	end := strings.TrimSpace(r.PostFormValue("end"))
	if _, err := time.Parse(time.DateOnly, end); end != "" && err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "end"))
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	scs, err := s.store.ListSchedules(ctx, doctor)
	cancel()
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	for _, sc := range scs {
		if sc.ID != id {
			continue
		}
		sc.EndDate = end
		if _, _, _, err := s.svc.UpdateSchedule(r.Context(), sc); err != nil {
			s.renderError(w, r, err)
			return
		}
		redirect(w, r, "/staff/doctors/"+strconv.FormatInt(doctor, 10)+"?ended=1")
		return
	}
	s.renderError(w, r, booking.NotFound("schedule"))
}
