package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

type staffSigninData struct {
	Name string
	Next string
	Demo bool
}

// handleStaffSignin asks for a staff user name, password and, for a user
// with a second factor, its code.
func (s *server) handleStaffSignin(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(w, r, "Staff sign-in")
	p.Data = staffSigninData{Next: safeNext(r.URL.Query().Get("next"), ""), Demo: s.demo}
	s.render(w, r, http.StatusOK, "staff_signin", p)
}

// Longest password and code read from the form: bcrypt uses 72 bytes, a
// code has six digits (spaces allowed).
const (
	maxStaffPassword = 256
	maxStaffCode     = 16
)

// handleStaffSigninSubmit parses the form, lets the Service decide the
// sign-in (password, second factor, the name's lockout shared by every
// instance) and starts the session. Posts are limited per client address
// before anything is read.
func (s *server) handleStaffSigninSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	d := staffSigninData{Name: name, Next: safeNext(r.PostFormValue("next"), ""), Demo: s.demo}
	// fail shows the form again with a problem; its status is the problem
	// table's for the problem's code.
	fail := func(v *problemView) {
		p := s.newPage(w, r, "Staff sign-in")
		p.Problem = v
		p.Data = d
		s.render(w, r, problem.Status(booking.Code(v.Code)), "staff_signin", p)
	}
	if ok, wait := s.signinLimited(r, nil, ""); !ok {
		fail(s.rateLimited(w, wait))
		return
	}
	password, code := r.PostFormValue("password"), r.PostFormValue("code")
	if len(password) > maxStaffPassword || len(code) > maxStaffCode {
		fail(s.staffWrong(r))
		return
	}
	id, err := s.svc.StaffSignIn(r.Context(), service.StaffCredentials{
		Name: name, Password: password, TOTP: code, ClientAddr: edge.ClientAddr(r)})
	if err != nil {
		pr := s.printer(r)
		var e *booking.Error
		switch booking.ErrorCode(err) {
		case booking.CodeUnauthorized:
			fail(s.staffWrong(r))
		case booking.CodeRateLimited:
			if asError(err, &e) {
				fail(s.staffLocked(w, r, e))
				return
			}
			s.renderError(w, r, err)
		case booking.CodeForbidden:
			if errors.Is(err, service.ErrStaffDisabled) {
				fail(&problemView{Code: string(booking.CodeForbidden), Title: pr.T("This account is disabled"),
					Message: pr.T("An administrator disabled this staff account (`slotd staff-disable`); it cannot sign in.")})
				return
			}
			fail(&problemView{Code: string(booking.CodeForbidden), Title: pr.T("A second factor is required"),
				Message: pr.T("This admin account has no second factor, which this clinic requires. Enrol one with `slotd staff-totp --user %s`, then sign in with its code.", name)})
		default:
			s.renderError(w, r, err)
		}
		return
	}
	if id.Role == booking.RoleDoctor {
		// A doctor's account signs in as that doctor only.
		if err := s.signIn(w, r, auth.RoleDoctor, strconv.FormatInt(id.DoctorID, 10)); err != nil {
			s.renderError(w, r, err)
			return
		}
		redirect(w, r, "/doctor/days/today")
		return
	}
	role := auth.RoleAdmin
	if id.Role == booking.RoleReception {
		role = auth.RoleReception
	}
	if err := s.signIn(w, r, role, staffPrefix+id.Name); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, safeNext(d.Next, "/staff"))
}

// staffWrong is the one answer to a wrong name, password or code.
func (s *server) staffWrong(r *http.Request) *problemView {
	pr := s.printer(r)
	return &problemView{Code: string(booking.CodeUnauthorized), Title: pr.T("Wrong name or password"),
		Message: pr.T("The user name, the password or the code is not right. Passwords are set with `slotd staff-password`, second factors with `slotd staff-totp`.")}
}

// staffLocked is the problem of a staff name locked by its failed
// sign-ins, with Retry-After.
func (s *server) staffLocked(w http.ResponseWriter, r *http.Request, e *booking.Error) *problemView {
	secs := int(e.RetryAfter.Seconds())
	if e.RetryAfter > 0 && float64(secs) < e.RetryAfter.Seconds() {
		secs++
	}
	secs = max(secs, 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	pr := s.printer(r)
	return &problemView{Code: string(booking.CodeRateLimited), Title: pr.T("Sign-in locked"),
		Message: pr.T("Too many failed sign-ins for this user name: it is locked for %d seconds, even with the right password. Try again then.", secs)}
}
