package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slotd/slotd/booking"
)

// staffHomeData is the staff catalog page.
type staffHomeData struct {
	// Patient is the person the front desk is booking for (?patient=):
	// the day links carry it.
	Patient     int64
	Departments []booking.Department
	// Offered marks the departments patients see
	// (booking.CatalogStore.ListDepartments); the others are marked.
	Offered map[int64]bool
	// Boards are the departments' waiting room board links, with their
	// keys (departmentBoardLink).
	Boards  map[int64]string
	Doctors []staffDoctorRow
}

type staffDoctorRow struct {
	booking.Doctor
	Department string
}

// handleStaffHome lists departments and doctors with forms to add them:
// for staff limited to sites, those of its sites only
// (booking.SiteAllowed).
func (s *server) handleStaffHome(w http.ResponseWriter, r *http.Request, sess session) {
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	caller, err := s.svc.Caller(ctx, sess.actor())
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	all, err := s.store.ListAllDepartments(ctx, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	// Deactivated doctors too, marked, so staff can reactivate them.
	docs, err := s.store.ListAllDoctors(ctx, 0, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	deps := make([]booking.Department, 0, len(all))
	names, boards := map[int64]string{}, map[int64]string{}
	for _, d := range all {
		if booking.SiteAllowed(caller, d.SiteID) {
			deps = append(deps, d)
			names[d.ID], boards[d.ID] = d.Name, s.departmentBoardLink(d.ID)
		}
	}
	rows := make([]staffDoctorRow, 0, len(docs))
	for _, d := range docs {
		if _, ok := names[d.DepartmentID]; ok {
			rows = append(rows, staffDoctorRow{d, names[d.DepartmentID]})
		}
	}
	shown, err := s.store.ListDepartments(ctx, booking.Page{})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	offered := map[int64]bool{}
	for _, d := range shown {
		offered[d.ID] = true
	}
	p := s.newPage(w, r, "Clinic catalog")
	switch q := r.URL.Query(); {
	case q.Has("department"):
		p.Notice = p.T("Department added.")
	case q.Has("doctor"):
		p.Notice = p.T("Doctor added. Open it to create a schedule.")
	}
	p.Data = staffHomeData{Departments: deps, Offered: offered, Boards: boards, Doctors: rows, Patient: s.deskModeOf(r).PatientID}
	s.render(w, r, http.StatusOK, "staff_home", p)
}

// cleanName trims a display name and checks it: 1 to 200 printable
// characters.
func cleanName(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "" || utf8.RuneCountInString(v) > 200 || !utf8.ValidString(v) ||
		strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", false
	}
	return v, true
}

func (s *server) handleStaffCreateDepartment(w http.ResponseWriter, r *http.Request, _ session) {
	name, ok := cleanName(r.PostFormValue("name"))
	if !ok {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "name"))
		return
	}
	if _, err := s.svc.CreateDepartment(r.Context(), booking.Department{Name: name}); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff?department=1")
}

func (s *server) handleStaffCreateDoctor(w http.ResponseWriter, r *http.Request, _ session) {
	name, ok := cleanName(r.PostFormValue("name"))
	dep, err := strconv.ParseInt(r.PostFormValue("department"), 10, 64)
	tz := strings.TrimSpace(r.PostFormValue("timezone"))
	if !ok || err != nil || dep <= 0 || tz == "" || tz == "Local" || len(tz) > 64 {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "doctor"))
		return
	}
	if _, err := time.LoadLocation(tz); err != nil {
		s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "time zone"))
		return
	}
	d, err := s.svc.CreateDoctor(r.Context(), booking.Doctor{Name: name, DepartmentID: dep, TimeZone: tz})
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, "/staff/doctors/"+itoa(d.ID)+"?created=1")
}
