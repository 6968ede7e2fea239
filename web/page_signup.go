package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// signupData is the sign-up page: the address step, then the code and
// the new patient's details; Off when the clinic registers its patients
// itself.
type signupData struct {
	Step    string // "address" or "details"
	Address string // a phone number or an e-mail address, as typed
	Next    string
	Name    string
	Birth   string
	Sex     string
	// RealName: the clinic registers real names (the policy's
	// requireNationalId), so the details ask for NationalID.
	RealName   bool
	NationalID string
	// DemoCode is the code sent, shown on the page in demo mode only.
	DemoCode string
	// Off: sign-up is turned off; ClinicPhone and Place say how to
	// register instead.
	Off                bool
	ClinicPhone, Place string
}

func (s *server) signupData(r *http.Request, step string) signupData {
	// A policy that cannot be read shows no field: the sign-up itself
	// still refuses a missing number with its own problem.
	pol, _ := s.svc.ClinicPolicy(r.Context())
	return signupData{Step: step, Next: safeNext(r.FormValue("next"), ""), RealName: pol.RequireNationalID,
		Off: !s.signin.SignupEnabled(), ClinicPhone: s.clinicPhone, Place: s.place}
}

// signupAddress splits the one address field: an e-mail address has an @.
func signupAddress(raw string) (phone, email string) {
	if strings.Contains(raw, "@") {
		return "", raw
	}
	return raw, ""
}

// handleSignup asks for the phone number or e-mail address.
func (s *server) handleSignup(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(w, r, "Create an account")
	d := s.signupData(r, "address")
	p.Data = d
	status := http.StatusOK
	if d.Off {
		status = problem.Status(booking.CodeSignupDisabled)
	}
	s.render(w, r, status, "signup", p)
}

// handleSignupAddress sends a code to the address and asks for it with the
// new patient's details; the answer is the same whether or not the address
// is registered.
func (s *server) handleSignupAddress(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	raw := r.PostFormValue("address")
	d := s.signupData(r, "details")
	d.Address = strings.TrimSpace(raw)
	phone, email := signupAddress(raw)
	sent, err := s.signin.RequestSignupCode(r.Context(), service.SignupCodeRequest{
		Phone: phone, Email: email, ClientAddr: edge.ClientAddr(r), Language: s.printer(r).Lang()})
	p := s.newPage(w, r, "Create an account")
	if err != nil {
		d.Step = "address"
		p.Data = d
		p.Problem = s.signupProblem(w, r, err, true)
		s.render(w, r, problem.Status(errorCode(err)), "signup", p)
		return
	}
	d.DemoCode = sent.DemoCode
	p.Data = d
	s.render(w, r, http.StatusOK, "signup", p)
}

// handleSignupCreate checks the code, creates the patient (or finds the
// one who has the address) and signs them in, then goes on to next.
func (s *server) handleSignupCreate(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	raw := r.PostFormValue("address")
	d := s.signupData(r, "details")
	d.Address, d.Name, d.Birth, d.Sex = strings.TrimSpace(raw), r.PostFormValue("name"), r.PostFormValue("birthDate"), r.PostFormValue("sex")
	d.NationalID = r.PostFormValue("nationalId")
	phone, email := signupAddress(raw)
	up, err := s.signin.Signup(r.Context(), service.SignupRequest{Phone: phone, Email: email, Code: r.PostFormValue("code"),
		Profile:  booking.SignupProfile{Name: d.Name, BirthDate: d.Birth, Sex: d.Sex, NationalID: d.NationalID},
		Language: s.printer(r).Lang(), ClientAddr: edge.ClientAddr(r)})
	if err == nil {
		err = s.signIn(w, r, auth.RolePatient, strconv.FormatInt(up.Patient.ID, 10))
	}
	if err != nil {
		code := errorCode(err)
		switch code {
		case booking.CodeInvalidRequest, booking.CodeNotFound, booking.CodeRateLimited, booking.CodeSignupDisabled, booking.CodeBookingBlocked,
			booking.CodeNationalIDRequired, booking.CodeNationalIDTaken:
		default:
			s.renderError(w, r, err)
			return
		}
		// The details again with the problem; a code that cannot be used
		// any more sends back to the address step (a missing national ID
		// is refused before the code is used).
		p := s.newPage(w, r, "Create an account")
		p.Problem = s.signupProblem(w, r, err, false)
		if code != booking.CodeInvalidRequest && code != booking.CodeNationalIDRequired {
			d.Step = "address"
		}
		p.Data = d
		s.render(w, r, problem.Status(code), "signup", p)
		return
	}
	redirect(w, r, safeNext(d.Next, "/appointments?welcome=1"))
}

// signupProblem is what a refused sign-up step tells the person: the
// member at fault, else what sign-in would say.
func (s *server) signupProblem(w http.ResponseWriter, r *http.Request, err error, asking bool) *problemView {
	pr := s.printer(r)
	var be *booking.Error
	if !asError(err, &be) || be.Code != booking.CodeInvalidRequest {
		switch errorCode(err) {
		case booking.CodeSignupDisabled, booking.CodeBookingBlocked, booking.CodeNationalIDRequired, booking.CodeNationalIDTaken:
			v, _ := s.explain(r, err)
			return v
		}
		return s.signinProblem(w, r, err, asking)
	}
	view := func(title, msg string) *problemView {
		return &problemView{Code: string(be.Code), Title: pr.T(title), Message: pr.T(msg)}
	}
	switch be.Pointer {
	case "/phone", "/email":
		return view("Please check the phone number or e-mail address", "Enter your phone number, as you would dial it from here or with its country code (+…), or your e-mail address.")
	case "/name":
		return view("Please check your name", "Enter your name as the clinic should know it (at most 200 characters).")
	case "/birthDate":
		return view("Please check the birth date", "Enter a real date in the past, or leave it empty.")
	case "/sex":
		return view("Please check the form", "Choose one of the options, or leave it empty.")
	case "/nationalId":
		return view("Please check the national ID number", "Enter the number as written on the identity document: 4 to 32 letters and digits.")
	}
	return s.signinProblem(w, r, err, asking)
}
