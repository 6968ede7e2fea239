package service

import (
	"context"
	"strings"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/notify"
)

// A patient's sign-up is a sign-in to an account that may not exist yet:
// the same code (its generation, keyed hashes, limits, wrong-code
// counting), sent to the address the person types, then the account.
// Nothing tells a registered address from another: the code request is
// answered and sent alike, and a registered address's right code signs
// into its account (the details given are not applied to it).

// SignupObserver is told the outcome of every sign-up (Signup): SignupCreated,
// SignupExisting, SignupDisabled, or a code check's (SigninWrong,
// SigninExpired, SigninInvalid, SigninDeparted, a limit, SigninFailed).
type SignupObserver interface {
	Signup(outcome string)
}

// Outcomes of a sign-up beyond a code check's.
const (
	SignupCreated  = "created"  // a new patient
	SignupExisting = "existing" // the address was a patient's: signed in
	SignupDisabled = "disabled" // the clinic turned sign-up off
	// SignupNationalIDTaken: the national ID number given is another
	// patient's (real-name registration).
	SignupNationalIDTaken = "national-id-taken"
)

// SignupCodeRequest asks for a sign-up code sent to Phone or Email (one of
// them, as typed), from ClientAddr, in Language (the notifier's when "").
type SignupCodeRequest struct {
	Phone, Email string
	ClientAddr   string
	Language     string
}

// SignupRequest creates the patient who proves Phone or Email with Code.
// Language, when set, is an i18n.Languages tag its notifications speak.
type SignupRequest struct {
	Phone, Email string
	Code         string
	Profile      booking.SignupProfile
	Language     string
	ClientAddr   string
}

// SignedUp is a sign-up's patient; Created is false when the address was
// already a patient's, who is then signed in.
type SignedUp struct {
	Patient booking.Patient
	Created bool
}

// signupDisabled is the refusal of both steps when sign-up is off.
func signupDisabled() error {
	return booking.Errorf(booking.CodeSignupDisabled, "this clinic registers its patients itself: sign-up is turned off")
}

// SignupEnabled reports whether patients may sign up here.
func (g *Signin) SignupEnabled() bool { return !g.signupOff }

// RequestSignupCode sends a new code to r's address, whether or not it is
// a patient's, under sign-in's limits (RequestSigninCode's refusals; a
// code sent spends the clinic's budget), and CodeSignupDisabled when
// sign-up is off. The code is stored under the address's key, so that the
// address's limits are shared with sign-in's.
func (g *Signin) RequestSignupCode(ctx context.Context, r SignupCodeRequest) (SigninCodeSent, error) {
	if g.signupOff {
		return SigninCodeSent{}, signupDisabled()
	}
	sent, outcome, err := g.requestSignupCode(ctx, r)
	if g.observer != nil {
		g.observer.SigninCode(outcome)
	}
	return sent, err
}

func (g *Signin) requestSignupCode(ctx context.Context, r SignupCodeRequest) (SigninCodeSent, string, error) {
	now := g.svc.now()
	a, err := g.signupAddress(r.Phone, r.Email)
	if err != nil {
		return SigninCodeSent{}, SigninInvalid, err
	}
	if outcome, err := g.admitCode(r.ClientAddr, now); err != nil {
		return SigninCodeSent{}, outcome, err
	}
	code, sent, outcome, err := g.issueCode(ctx, a.key, now)
	if err != nil {
		return sent, outcome, err
	}
	// To the address typed only, never to a patient's other one: the
	// answer does not depend on who has it.
	return g.sendCode(ctx, sent, notify.Message{Kind: notify.KindLoginCode, Language: r.Language,
		Phone: a.phone, Email: a.email, Code: code}, a.key, now)
}

// Signup checks r.Code for r's address and creates its patient from
// r.Profile, audited as the patient's own sign-up (booking.AuditSignup);
// when the address is already a patient's, the code signs that patient in
// instead, unchanged (but for the language, as at sign-in), and Created is
// false. Refusals: CodeSignupDisabled; CodeInvalidRequest naming the
// member at fault (Pointer) for an address, a code or a profile that is
// not one, and CodeNationalIDRequired where the clinic registers real
// names and none was given, before the code is used; CodeNationalIDTaken
// after it when the number is another patient's; then VerifySigninCode's for the code
// (counted alike) and for a departed patient's address.
func (g *Signin) Signup(ctx context.Context, r SignupRequest) (SignedUp, error) {
	out, outcome, err := g.signup(ctx, r)
	if o := g.signupObs; o != nil {
		o.Signup(outcome)
	}
	return out, err
}

func (g *Signin) signup(ctx context.Context, r SignupRequest) (SignedUp, string, error) {
	if g.signupOff {
		return SignedUp{}, SignupDisabled, signupDisabled()
	}
	now := g.svc.now()
	a, err := g.signupAddress(r.Phone, r.Email)
	if err != nil {
		return SignedUp{}, SigninInvalid, err
	}
	code := strings.TrimSpace(r.Code)
	if !codeShaped(code) {
		return SignedUp{}, SigninInvalid, &booking.Error{Code: booking.CodeInvalidRequest, Pointer: "/code",
			Message: "code must be the 6 digits sent", Err: ErrMalformedSignin}
	}
	profile, err := booking.CheckSignupProfile(r.Profile, now)
	if err != nil {
		return SignedUp{}, SigninInvalid, err
	}
	pol, err := g.svc.ClinicPolicy(ctx)
	if err != nil {
		return SignedUp{}, SigninFailed, err
	}
	if profile.NationalID, err = booking.CheckNationalID(profile.NationalID, pol.RequireNationalID); err != nil {
		return SignedUp{}, SigninInvalid, err
	}
	if r.Language != "" && i18n.Supported(r.Language) == "" {
		return SignedUp{}, SigninInvalid, &booking.Error{Code: booking.CodeInvalidRequest, Pointer: "/language",
			Message: "language must be en, fr, vi or zh-Hans"}
	}
	if ok, wait := g.attempts.Allow(r.ClientAddr, now); !ok {
		return SignedUp{}, SigninAddress, limited(wait, "too many sign-in attempts from this address")
	}
	if outcome, err := g.useCode(ctx, a.key, code, now); err != nil {
		return SignedUp{}, outcome, err
	}
	// The code proved the address: from here on, who has it may be told.
	if p, found, err := g.holder(ctx, a); err != nil || found {
		return g.existing(ctx, p, r.Language, err)
	}
	p, err := bounded(g.svc, ctx, func(ctx context.Context) (booking.Patient, error) {
		return g.accounts.SignUpPatient(ctx, booking.Patient{Name: profile.Name, Phone: a.phone, Email: a.email,
			Language: r.Language, BirthDate: profile.BirthDate, Sex: profile.Sex, NationalID: profile.NationalID}, now)
	})
	if booking.ErrorCode(err) == booking.CodeConflict {
		// Another sign-up of the phone won meanwhile (with another code):
		// the phone is its patient's.
		p, _, err := g.holder(ctx, a)
		return g.existing(ctx, p, r.Language, err)
	}
	if booking.ErrorCode(err) == booking.CodeNationalIDTaken {
		return SignedUp{}, SignupNationalIDTaken, err
	}
	if err != nil {
		return SignedUp{}, SigninFailed, err
	}
	return SignedUp{Patient: p, Created: true}, SignupCreated, nil
}

// existing answers a sign-up of an address that was patient p's.
func (g *Signin) existing(ctx context.Context, p booking.Patient, lang string, err error) (SignedUp, string, error) {
	if err != nil {
		return SignedUp{}, SigninFailed, err
	}
	if refused := booking.DepartedRefusal(p); refused != nil {
		return SignedUp{}, SigninDeparted, refused
	}
	return SignedUp{Patient: g.speaking(ctx, p, lang)}, SignupExisting, nil
}

// holder is the patient who has address a: the phone's, or the oldest
// active one of the e-mail's (an e-mail address may be several
// patients'), else its oldest.
func (g *Signin) holder(ctx context.Context, a signupAddress) (booking.Patient, bool, error) {
	if a.phone != "" {
		p, err := bounded(g.svc, ctx, func(ctx context.Context) (booking.Patient, error) { return g.accounts.PatientByPhone(ctx, a.phone) })
		if booking.ErrorCode(err) == booking.CodeNotFound {
			return booking.Patient{}, false, nil
		}
		return p, err == nil, err
	}
	ps, err := bounded(g.svc, ctx, func(ctx context.Context) ([]booking.Patient, error) { return g.accounts.PatientsByEmail(ctx, a.email) })
	if err != nil || len(ps) == 0 {
		return booking.Patient{}, false, err
	}
	for _, p := range ps {
		if booking.DepartedRefusal(p) == nil {
			return p, true, nil
		}
	}
	return ps[0], true, nil
}

// signupAddress is the address a sign-up proves: a phone as sign-in
// normalizes it, or an e-mail address; key is what its codes are stored
// under (a phone's is sign-in's, so that a phone's limits are one).
type signupAddress struct {
	phone, email, key string
}

// signupAddress reads the one address typed. The messages never echo it.
func (g *Signin) signupAddress(phone, email string) (signupAddress, error) {
	phone, email = strings.TrimSpace(phone), strings.TrimSpace(email)
	switch {
	case phone != "" && email != "":
		return signupAddress{}, &booking.Error{Code: booking.CodeInvalidRequest, Pointer: "/email",
			Message: "give a phone or an e-mail address, not both", Err: ErrMalformedSignin}
	case email != "":
		if !booking.EmailOK(email) {
			return signupAddress{}, &booking.Error{Code: booking.CodeInvalidRequest, Pointer: "/email",
				Message: "email must be an e-mail address", Err: ErrMalformedSignin}
		}
		// Keyed apart from every phone; in any case, as the e-mail index.
		return signupAddress{email: email, key: keyedHash(g.phoneKey, "email", strings.ToLower(email))}, nil
	}
	ph := g.phoneOf(phone)
	if ph == "" {
		return signupAddress{}, &booking.Error{Code: booking.CodeInvalidRequest, Pointer: "/phone",
			Message: "phone must be a telephone number", Err: ErrMalformedSignin}
	}
	return signupAddress{phone: ph, key: g.phoneKeyOf(ph)}, nil
}
