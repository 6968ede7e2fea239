package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/problem"
	"github.com/slotd/slotd/service"
)

// signinData is the sign-in page: the phone step, then the code step.
type signinData struct {
	Step  string // "phone" or "code"
	Phone string
	Next  string
	// DemoCode is the code shown on the page in demo mode only.
	DemoCode string
	// DemoPhone is a sample patient's phone, in demo mode only.
	DemoPhone string
	// Choose offers the choice of channel (SMS or e-mail configured);
	// Channel is the one chosen; EmailOnly says codes go by e-mail alone.
	Choose    bool
	Channel   string
	EmailOnly bool
}

// codeChannel fills d's channel part from the configured channels and
// the one asked for (a form's "channel", kept only when it is offered).
func (s *server) codeChannel(d *signinData, asked string) {
	sms, email := slices.Contains(s.codeChannels, notify.ChannelSMS), slices.Contains(s.codeChannels, notify.ChannelEmail)
	d.Choose, d.EmailOnly = sms && email, email && !sms
	if d.Choose && (asked == notify.ChannelSMS || asked == notify.ChannelEmail) {
		d.Channel = asked
	}
}

// demoPhone is the first demo patient's phone (see package demo).
const demoPhone = "+33 6 00 00 00 00"

// handleSignin asks for the phone number.
func (s *server) handleSignin(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(w, r, "Sign in")
	d := signinData{Step: "phone", Next: safeNext(r.URL.Query().Get("next"), "")}
	s.codeChannel(&d, "")
	if s.demo {
		d.DemoPhone = demoPhone
	}
	p.Data = d
	s.render(w, r, http.StatusOK, "signin", p)
}

// handleSigninPhone asks the sign-in service to send a one-time code to
// the phone, and asks for it. The answer is the same whether or not the
// phone is registered, so the page cannot be used to find out who is a
// patient.
func (s *server) handleSigninPhone(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	raw := r.PostFormValue("phone")
	d := signinData{Step: "code", Phone: strings.TrimSpace(raw), Next: safeNext(r.PostFormValue("next"), "")}
	s.codeChannel(&d, r.PostFormValue("channel"))
	sent, err := s.signin.RequestSigninCode(r.Context(), service.SigninCodeRequest{
		Phone: raw, ClientAddr: edge.ClientAddr(r), Language: s.printer(r).Lang(), Channel: d.Channel})
	if err != nil {
		p := s.newPage(w, r, "Sign in")
		d.Step = "phone"
		p.Data = d
		p.Problem = s.signinProblem(w, r, err, true)
		s.render(w, r, problem.Status(errorCode(err)), "signin", p)
		return
	}
	d.DemoCode = sent.DemoCode
	p := s.newPage(w, r, "Enter your code")
	p.Data = d
	s.render(w, r, http.StatusOK, "signin", p)
}

// handleSigninVerify checks the code with the sign-in service and signs the
// patient in.
func (s *server) handleSigninVerify(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	raw := r.PostFormValue("phone")
	d := signinData{Step: "code", Phone: strings.TrimSpace(raw), Next: safeNext(r.PostFormValue("next"), "")}
	pr := s.printer(r)
	patient, err := s.signin.VerifySigninCode(r.Context(), service.SigninVerify{
		Phone: raw, Code: r.PostFormValue("code"), ClientAddr: edge.ClientAddr(r), Language: pr.Lang()})
	if err == nil {
		err = s.signIn(w, r, auth.RolePatient, strconv.FormatInt(patient.ID, 10))
	}
	if err != nil {
		code := errorCode(err)
		switch code {
		case booking.CodeInvalidRequest, booking.CodeNotFound, booking.CodeRateLimited:
		default:
			s.renderError(w, r, err)
			return
		}
		// The code step again with the problem; a code that cannot be
		// used any more sends back to the phone step.
		p := s.newPage(w, r, "Enter your code")
		p.Problem = s.signinProblem(w, r, err, false)
		if code != booking.CodeInvalidRequest {
			d.Step = "phone"
		}
		p.Data = d
		s.render(w, r, problem.Status(code), "signin", p)
		return
	}
	redirect(w, r, safeNext(d.Next, "/appointments?welcome=1"))
}

// signinProblem is what a refused code request (asking) or code check
// tells the patient, with Retry-After when there is a wait.
func (s *server) signinProblem(w http.ResponseWriter, r *http.Request, err error, asking bool) *problemView {
	pr := s.printer(r)
	code := errorCode(err)
	var be *booking.Error
	if asError(err, &be) && be.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(be.RetryAfter.Seconds())+1))
	}
	view := func(title, msg string) *problemView {
		return &problemView{Code: string(code), Title: title, Message: msg}
	}
	switch {
	case errors.Is(err, booking.ErrPhoneDayFailures):
		return view(pr.T("Too many wrong codes today"), pr.T("This phone had too many wrong codes today. You can sign in again tomorrow, or call the clinic."))
	case errors.Is(err, booking.ErrClinicDayFailures):
		return view(pr.T("Signing in with a code is paused"), pr.T("Too many wrong codes were entered today. Signing in with a code is paused until tomorrow: please call the clinic."))
	case code == booking.CodeInvalidRequest && asking:
		return view(pr.T("Please check the phone number"), pr.T("Enter your phone number, as you would dial it from here or with its country code (+…)."))
	case code == booking.CodeInvalidRequest && errors.Is(err, service.ErrMalformedSignin):
		return view(pr.T("Please check the code"), pr.T("Enter the 6-digit code we sent to your phone."))
	case code == booking.CodeInvalidRequest:
		return view(pr.T("That code is not right"), pr.T("The code does not match the one we sent. Check the message and try again."))
	case code == booking.CodeNotFound && !asking:
		return view(pr.T("The code has expired"), pr.T("This code has expired or was already used. Ask for a new code."))
	case code == booking.CodeRateLimited && !asking && be != nil && be.RetryAfter == 0:
		// The code's own wrong guesses ran out: a new code may be asked.
		return view(pr.T("Too many wrong codes"), pr.T("You entered too many wrong codes. Ask for a new code."))
	case code == booking.CodeRateLimited:
		p := problemOf(booking.CodeRateLimited)
		return view(pr.T(p.Title), pr.T(p.Message))
	}
	v, _ := s.explain(r, err)
	return v
}

// handleSignout ends the session (patient or staff): its cookie, copied
// or not, is refused from now on. When the database cannot record that,
// the session stays and the error page says to try again.
func (s *server) handleSignout(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	staff := s.sessionOf(r).IsStaff()
	if err := s.signOut(w, r); err != nil {
		s.renderError(w, r, err)
		return
	}
	if staff {
		redirect(w, r, "/staff/signin")
		return
	}
	redirect(w, r, "/")
}
