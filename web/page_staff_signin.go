package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/problem"
)

// dummyHash is compared against when a staff user does not exist, so that
// a wrong name takes as long as a wrong password.
var dummyHash, _ = accounts.HashPassword("slotd-no-such-user")

type staffSigninData struct {
	Name string
	Next string
	Demo bool
}

// handleStaffSignin asks for a staff user name and password.
func (s *server) handleStaffSignin(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(w, r, "Staff sign-in")
	p.Data = staffSigninData{Next: safeNext(r.URL.Query().Get("next"), ""), Demo: s.demo}
	s.render(w, r, http.StatusOK, "staff_signin", p)
}

// handleStaffSigninSubmit checks the password (bcrypt) and starts an admin
// session. Attempts are limited per user name.
func (s *server) handleStaffSigninSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	password := r.PostFormValue("password")
	d := staffSigninData{Name: name, Next: safeNext(r.PostFormValue("next"), ""), Demo: s.demo}
	// fail shows the form again with a problem; its status is the problem
	// table's for the problem's code.
	fail := func(v *problemView) {
		p := s.newPage(w, r, "Staff sign-in")
		p.Problem = v
		p.Data = d
		s.render(w, r, problem.Status(booking.Code(v.Code)), "staff_signin", p)
	}
	if ok, wait := s.signinLimited(r, s.staffLimit, strings.ToLower(name)); !ok {
		fail(s.rateLimited(w, wait))
		return
	}
	hash := dummyHash
	known := false
	if accounts.StaffNameOK(name) {
		ctx, cancel := s.storeCtx(r.Context())
		h, err := s.accounts.StaffPasswordHash(ctx, name)
		cancel()
		switch {
		case err == nil:
			hash, known = h, true
		case booking.ErrorCode(err) != booking.CodeNotFound:
			s.renderError(w, r, err)
			return
		}
	}
	if !accounts.PasswordMatches(hash, password) || !known {
		pr := s.printer(r)
		fail(&problemView{Code: string(booking.CodeUnauthorized), Title: pr.T("Wrong name or password"),
			Message: pr.T("The user name or the password is not right. Passwords are set with `slotd staff-password`.")})
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	disabled, err := s.accounts.StaffDisabled(ctx, name)
	cancel()
	if err == nil && disabled {
		pr := s.printer(r)
		fail(&problemView{Code: string(booking.CodeForbidden), Title: pr.T("This account is disabled"),
			Message: pr.T("An administrator disabled this staff account (`slotd staff-disable`); it cannot sign in.")})
		return
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	ctx, cancel = s.storeCtx(r.Context())
	doctorID, err := s.accounts.StaffDoctor(ctx, name)
	cancel()
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if doctorID > 0 {
		// A doctor's account signs in as that doctor only.
		if err := s.signIn(w, r, auth.RoleDoctor, strconv.FormatInt(doctorID, 10)); err != nil {
			s.renderError(w, r, err)
			return
		}
		redirect(w, r, "/doctor/days/today")
		return
	}
	if err := s.signIn(w, r, auth.RoleAdmin, staffPrefix+name); err != nil {
		s.renderError(w, r, err)
		return
	}
	redirect(w, r, safeNext(d.Next, "/staff"))
}
