package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/problem"
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
}

// demoPhone is the first demo patient's phone (see package demo).
const demoPhone = "+33 6 00 00 00 00"

// handleSignin asks for the phone number.
func (s *server) handleSignin(w http.ResponseWriter, r *http.Request) {
	p := s.newPage(w, r, "Sign in")
	d := signinData{Step: "phone", Next: safeNext(r.URL.Query().Get("next"), "")}
	if s.demo {
		d.DemoPhone = demoPhone
	}
	p.Data = d
	s.render(w, r, http.StatusOK, "signin", p)
}

// handleSigninPhone sends a one-time code to a registered phone and asks
// for it. The answer is the same whether or not the phone is registered, so
// the page cannot be used to find out who is a patient.
func (s *server) handleSigninPhone(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	raw := r.PostFormValue("phone")
	d := signinData{Step: "code", Phone: strings.TrimSpace(raw), Next: safeNext(r.PostFormValue("next"), "")}
	phone := s.svc.NormalizePhone(raw)
	if phone == "" {
		p := s.newPage(w, r, "Sign in")
		d.Step = "phone"
		p.Problem = &problemView{Code: string(booking.CodeInvalidRequest), Title: p.T("Please check the phone number"),
			Message: p.T("Enter your phone number, as you would dial it from here or with its country code (+…).")}
		p.Data = d
		s.render(w, r, problem.Status(booking.CodeInvalidRequest), "signin", p)
		return
	}
	if ok, wait := s.codeLimited(r); !ok {
		p := s.newPage(w, r, "Sign in")
		p.Problem = s.rateLimited(w, wait)
		d.Step = "phone"
		p.Data = d
		s.render(w, r, problem.Status(booking.CodeRateLimited), "signin", p)
		return
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	patient, err := s.accounts.PatientByPhone(ctx, phone)
	switch {
	case err == nil:
		code, err := s.sendCode(r, phone, patient)
		if err != nil {
			v, status := s.explain(r, err)
			p := s.newPage(w, r, "Sign in")
			p.Problem = v
			d.Step = "phone"
			p.Data = d
			var be *booking.Error
			if asError(err, &be) && be.RetryAfter > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(int(be.RetryAfter.Seconds())+1))
			}
			s.render(w, r, status, "signin", p)
			return
		}
		if s.demo {
			d.DemoCode = code
		}
	case booking.ErrorCode(err) == booking.CodeNotFound:
		// Same answer as for a registered phone.
	default:
		s.renderError(w, r, err)
		return
	}
	p := s.newPage(w, r, "Enter your code")
	p.Data = d
	s.render(w, r, http.StatusOK, "signin", p)
}

// sendCode issues a code for phone (within the per-phone limit) and sends
// it through the notifier.
func (s *server) sendCode(r *http.Request, phone string, patient booking.Patient) (string, error) {
	code, err := newCode()
	if err != nil {
		return "", err
	}
	key := s.phoneKeyOf(phone)
	now := s.now()
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	if err := s.accounts.IssueLoginCode(ctx, accounts.IssueCode{PhoneKey: key, CodeHash: s.codeHashOf(key, code), Now: now, ExpiresAt: now.Add(accounts.CodeTTL), WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone}); err != nil {
		return "", err
	}
	msg := notify.Message{
		Kind: notify.KindLoginCode, PatientID: patient.ID, PatientName: patient.Name, Language: s.printer(r).Lang,
		Phone: patient.Phone, Code: code, IdempotencyKey: "login-" + key[:16] + "-" + strconv.FormatInt(now.UnixNano(), 36),
	}
	if err := s.notifier.Notify(r.Context(), msg); err != nil {
		// The code is stored; the patient may ask again within the limit.
		s.log.WarnContext(r.Context(), "web: sending a sign-in code failed", "patientId", patient.ID, "err", err)
		return "", booking.Errorf(booking.CodeUnavailable, "the code could not be sent")
	}
	return code, nil
}

// handleSigninVerify checks the code and signs the patient in.
func (s *server) handleSigninVerify(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	raw := r.PostFormValue("phone")
	d := signinData{Step: "code", Phone: strings.TrimSpace(raw), Next: safeNext(r.PostFormValue("next"), "")}
	phone := s.svc.NormalizePhone(raw)
	code := strings.TrimSpace(r.PostFormValue("code"))
	pr := s.printer(r)
	// fail shows the code step again with a problem; its status is the
	// problem table's for code.
	fail := func(title, msg string, code booking.Code) {
		p := s.newPage(w, r, "Enter your code")
		p.Problem = &problemView{Code: string(code), Title: title, Message: msg}
		if code != booking.CodeInvalidRequest {
			d.Step = "phone"
		}
		p.Data = d
		s.render(w, r, problem.Status(code), "signin", p)
	}
	if phone == "" || len(code) != codeDigits {
		fail(pr.T("Please check the code"), pr.T("Enter the 6-digit code we sent to your phone."), booking.CodeInvalidRequest)
		return
	}
	if ok, wait := s.signinLimited(r, nil, ""); !ok {
		pr := s.rateLimited(w, wait)
		fail(pr.Title, pr.Message, booking.CodeRateLimited)
		return
	}
	key := s.phoneKeyOf(phone)
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	err := s.accounts.UseLoginCode(ctx, accounts.UseCode{PhoneKey: key, CodeHash: s.codeHashOf(key, code), Now: s.now(), MaxAttempts: accounts.CodeMaxAttempts})
	switch booking.ErrorCode(err) {
	case "":
	case booking.CodeInvalidRequest:
		fail(pr.T("That code is not right"), pr.T("The code does not match the one we sent. Check the message and try again."), booking.CodeInvalidRequest)
		return
	case booking.CodeNotFound:
		fail(pr.T("The code has expired"), pr.T("This code has expired or was already used. Ask for a new code."), booking.CodeNotFound)
		return
	case booking.CodeRateLimited:
		fail(pr.T("Too many wrong codes"), pr.T("You entered too many wrong codes. Ask for a new code."), booking.CodeRateLimited)
		return
	default:
		s.renderError(w, r, err)
		return
	}
	patient, err := s.accounts.PatientByPhone(ctx, phone)
	if refused := booking.DepartedRefusal(patient); err == nil && refused != nil {
		err = refused // a departed patient's right code signs nobody in
	}
	if err != nil {
		s.renderError(w, r, err)
		return
	}
	if err := s.signIn(w, r, auth.RolePatient, strconv.FormatInt(patient.ID, 10)); err != nil {
		s.renderError(w, r, err)
		return
	}
	// The language the patient reads the pages in is the one their
	// notifications will speak.
	s.rememberLanguage(r, patient.ID, pr.Lang)
	redirect(w, r, safeNext(d.Next, "/appointments?welcome=1"))
}

// handleSignout ends the session (patient or staff).
func (s *server) handleSignout(w http.ResponseWriter, r *http.Request) {
	if !s.postForm(w, r) {
		return
	}
	staff := s.sessionOf(r).IsStaff()
	s.signOut(w, r)
	if staff {
		redirect(w, r, "/staff/signin")
		return
	}
	redirect(w, r, "/")
}
