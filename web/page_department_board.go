package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// A department's board (docs/web.md "Calling patients in"): every doctor
// of the department with their called number and next few, for the
// waiting room they share. A row is headed by the doctor's consulting
// room (booking.Profile) and name, the name alone when they have none.

// departmentToken is department id's board key. It is signed apart from
// the doctors' (displayToken), so that no doctor's key opens the
// department of the same id.
func (s *server) departmentToken(id int64) string {
	m := hmac.New(sha256.New, s.displayKey)
	m.Write([]byte("department-board\x00" + strconv.FormatInt(id, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// departmentBoardAllowed says whether r may see department id's board: a
// staff session, or the board's key in ?key=.
func (s *server) departmentBoardAllowed(r *http.Request, id int64) bool {
	if s.sessionOf(r).IsStaff() {
		return true
	}
	return hmac.Equal([]byte(r.URL.Query().Get("key")), []byte(s.departmentToken(id)))
}

// departmentBoardLink is the link staff put on the department's screen.
func (s *server) departmentBoardLink(id int64) string {
	return fmt.Sprintf("/display/departments/%d?key=%s", id, s.departmentToken(id))
}

// departmentBoardView is a department board's state, rendered on the page
// and sent whole on each event, as boardView.
type departmentBoardView struct {
	DepartmentID int64       `json:"departmentId"`
	Department   string      `json:"department"`
	Doctors      []boardView `json:"doctors"`
}

// departmentDisplayView is the department board page.
type departmentDisplayView struct {
	Board  departmentBoardView
	Events string
}

// boardTarget reads a department board's request: the department, the
// screen's first doctor (?after=), both checked. ok is false once it has
// answered.
func (s *server) boardTarget(w http.ResponseWriter, r *http.Request) (id, after int64, ok bool) {
	id, err := pathID(r, "id")
	if err != nil || !s.departmentBoardAllowed(r, id) {
		s.handleNotFound(w, r)
		return 0, 0, false
	}
	if a := r.URL.Query().Get("after"); a != "" {
		if after, err = strconv.ParseInt(a, 10, 64); err != nil || after < 0 {
			s.renderError(w, r, booking.Errorf(booking.CodeInvalidRequest, "after must be a doctor id"))
			return 0, 0, false
		}
	}
	return id, after, true
}

// departmentBoardOf is b as the page shows it, each doctor's times in
// their zone (zones caches them for a stream).
func (s *server) departmentBoardOf(r *http.Request, p *page, b service.DepartmentBoard, zones map[int64]*time.Location) departmentBoardView {
	v := departmentBoardView{DepartmentID: b.DepartmentID, Department: b.Department, Doctors: []boardView{}}
	for _, d := range b.Doctors {
		loc, ok := zones[d.DoctorID]
		if !ok {
			loc = s.doctorZone(r, d.DoctorID)
			zones[d.DoctorID] = loc
		}
		v.Doctors = append(v.Doctors, s.boardViewOf(p, d, loc))
	}
	return v
}

// handleDepartmentDisplay is a department's waiting room board: full
// screen, large type, live over server-sent events.
func (s *server) handleDepartmentDisplay(w http.ResponseWriter, r *http.Request) {
	id, after, ok := s.boardTarget(w, r)
	if !ok {
		return
	}
	b, err := s.svc.DepartmentQueueBoard(r.Context(), id, after)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Waiting room")
	q := url.Values{}
	for _, k := range []string{"key", "after"} {
		if v := r.URL.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	ev := fmt.Sprintf("/display/departments/%d/events", id)
	if len(q) > 0 {
		ev += "?" + q.Encode()
	}
	p.Data = departmentDisplayView{Board: s.departmentBoardOf(r, p, b, map[int64]*time.Location{}), Events: ev}
	s.render(w, r, http.StatusOK, "department_display", p)
}

// handleDepartmentDisplayEvents streams a department's board
// (streamBoard), woken by any of the screen's doctors' queues.
func (s *server) handleDepartmentDisplayEvents(w http.ResponseWriter, r *http.Request) {
	id, after, ok := s.boardTarget(w, r)
	if !ok {
		return
	}
	b, err := s.svc.DepartmentQueueBoard(r.Context(), id, after)
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	doctors := make([]int64, 0, len(b.Doctors))
	for _, d := range b.Doctors {
		doctors = append(doctors, d.DoctorID)
	}
	zones, first := map[int64]*time.Location{}, true
	s.streamBoard(w, r, doctors, func(p *page) (any, error) {
		if first { // the read that named the doctors is the first event's
			first = false
			return s.departmentBoardOf(r, p, b, zones), nil
		}
		b, err := s.svc.DepartmentQueueBoard(r.Context(), id, after)
		return s.departmentBoardOf(r, p, b, zones), err
	})
}
