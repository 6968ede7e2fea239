package service

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/notify"
)

// CodeDigits is the length of a sign-in code.
const CodeDigits = 6

// MaxSigninInput bounds a phone as typed: a longer one is not a phone.
const MaxSigninInput = 64

// ErrMalformedSignin is the cause (errors.Is) of the refusal of a phone
// or a code that is not one, as told from a wrong code.
var ErrMalformedSignin = errors.New("not a phone number or not a sign-in code")

// SigninOptions configure a Signin.
type SigninOptions struct {
	// Accounts finds patients by phone and keeps the codes and the day's
	// wrong codes (required).
	Accounts accounts.Store
	// Notifier sends the codes (Kind notify.KindLoginCode) (required).
	Notifier notify.Notifier
	// PhoneKey keys the hashes under which a phone's codes are stored, and
	// CodeKey the codes' hashes (required; auth.Signer.DeriveKey, so that
	// every instance sharing the secret accepts every other's codes).
	PhoneKey, CodeKey []byte
	// Demo returns the code to the caller (SigninCodeSent.DemoCode), to be
	// shown on the page: demo mode only.
	Demo bool
	// CodesPerAddress bounds the code requests of one client address per
	// 15 minutes (DefaultCodesPerAddress).
	CodesPerAddress int
	// CodesPerMinute is the clinic's budget of codes sent per minute (the
	// SMS budget, DefaultCodesPerMinute). Only codes sent to a registered
	// phone spend it.
	CodesPerMinute int
	// AttemptsPerMinute bounds the sign-in attempts (code requests and
	// checks) of one client address per minute (DefaultSigninPerMinute).
	AttemptsPerMinute int
	// FailuresPerDay is the clinic's wrong codes per day, over every phone
	// (--signin-failures-per-day, accounts.DefaultFailuresPerDay); beyond
	// it every check is refused until the day rolls (booking.SigninDay).
	FailuresPerDay int
	// Observer, when set, counts what happens to codes (metrics).
	Observer SigninObserver
	// SignupOff turns the patients' sign-up off (--signup=false): both its
	// steps answer CodeSignupDisabled (signup.go).
	SignupOff bool
	// SignupObserver, when set, counts the sign-ups' outcomes (metrics).
	SignupObserver SignupObserver
	// Logger receives failures to send or to remember; slog.Default().
	Logger *slog.Logger
}

// SigninPhoneKeyPurpose and SigninCodeKeyPurpose are the
// auth.Signer.DeriveKey purposes of SigninOptions.PhoneKey and CodeKey:
// every Signin of a deployment derives them alike, so that a code asked for
// through the pages is checked through the API and the other way round.
const (
	SigninPhoneKeyPurpose = "web-login-phone"
	SigninCodeKeyPurpose  = "web-login-code"
)

// Defaults of SigninOptions.
const (
	DefaultCodesPerAddress = 10
	DefaultCodesPerMinute  = 60
	DefaultSigninPerMinute = 30
)

// SigninObserver is told the outcome of every code request (SigninCode:
// SigninSent, SigninUnknown, or the limit that refused it) and of every
// code check (SigninChecked: SigninAccepted, SigninWrong, SigninExpired,
// SigninDeparted or the limit that refused it).
type SigninObserver interface {
	SigninCode(outcome string)
	SigninChecked(outcome string)
}

// Outcomes told to a SigninObserver.
const (
	SigninSent      = "sent"      // a code went to a registered phone
	SigninUnknown   = "unknown"   // no patient has the phone: nothing sent
	SigninInvalid   = "invalid"   // not a phone number, not a code
	SigninAddress   = "address"   // the client address's limit refused it
	SigninPhone     = "phone"     // the phone's codes of 15 minutes or of the day
	SigninClinic    = "clinic"    // the clinic's budget of codes per minute
	SigninFailed    = "failed"    // the notifier or the database failed
	SigninAccepted  = "accepted"  // the right code: signed in
	SigninWrong     = "wrong"     // a wrong code, counted
	SigninExpired   = "expired"   // no live code
	SigninAttempts  = "attempts"  // the code's wrong guesses ran out
	SigninPhoneDay  = "phone-day" // the phone's wrong codes of the day ran out
	SigninClinicDay = "clinic-day"
	SigninDeparted  = "departed" // the right code of a departed patient
)

// Signin is the patients' sign-in with a one-time code sent to their phone,
// the one place for its rules whichever front end asks (the web pages, the
// API): the phone's normalization (Service.NormalizePhone), the code and
// its keyed hashes, the limits per client address, per phone and for the
// clinic, the code's delivery, its check, the refusal of departed patients
// and the language they read.
//
// Nothing tells a registered phone from another: a code request is
// answered alike (a code is recorded under the phone's key either way, so
// the phone's limits are the same, but only a registered phone is sent one
// and spends the clinic's budget), and a code check of an unknown phone is
// a wrong or an expired code like any other.
type Signin struct {
	svc      *Service
	accounts accounts.Store
	notifier notify.Notifier
	phoneKey []byte
	codeKey  []byte
	demo     bool
	failures int
	observer SigninObserver
	log      *slog.Logger

	signupOff bool
	signupObs SignupObserver

	attempts *edge.KeyLimiter // sign-in attempts per client address
	codeAddr *edge.KeyLimiter // code requests per client address
	budget   *edge.Budget     // codes sent, clinic-wide
}

// NewSignin returns the sign-in of the service's patients. It panics when
// Accounts, Notifier or a key is missing: a wiring bug.
func (s *Service) NewSignin(opts SigninOptions) *Signin {
	if opts.Accounts == nil || opts.Notifier == nil || len(opts.PhoneKey) == 0 || len(opts.CodeKey) == 0 {
		panic("service: SigninOptions.Accounts, Notifier, PhoneKey and CodeKey are required")
	}
	if opts.CodesPerAddress <= 0 {
		opts.CodesPerAddress = DefaultCodesPerAddress
	}
	if opts.CodesPerMinute <= 0 {
		opts.CodesPerMinute = DefaultCodesPerMinute
	}
	if opts.AttemptsPerMinute <= 0 {
		opts.AttemptsPerMinute = DefaultSigninPerMinute
	}
	if opts.FailuresPerDay <= 0 {
		opts.FailuresPerDay = accounts.DefaultFailuresPerDay
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Signin{
		svc: s, accounts: opts.Accounts, notifier: opts.Notifier, phoneKey: opts.PhoneKey, codeKey: opts.CodeKey,
		demo: opts.Demo, failures: opts.FailuresPerDay, observer: opts.Observer, log: opts.Logger,
		signupOff: opts.SignupOff, signupObs: opts.SignupObserver,
		attempts: edge.NewKeyLimiter(opts.AttemptsPerMinute, time.Minute),
		codeAddr: edge.NewKeyLimiter(opts.CodesPerAddress, 15*time.Minute),
		budget:   edge.NewBudget(opts.CodesPerMinute, time.Minute),
	}
}

// SigninCodeRequest asks for a code sent to Phone (as typed), from
// ClientAddr (edge.ClientAddr), for a patient reading Language (an
// i18n.Languages tag; the notifier's when empty). Channel is where the
// patient wants the code (notify.ChannelSMS or ChannelEmail; "" lets the
// notifier choose): it goes there when the patient has that address and
// the channel is configured, else by the other.
type SigninCodeRequest struct {
	Phone      string
	ClientAddr string
	Language   string
	Channel    string
}

// SigninCodeSent is the answer to a code request, the same for a
// registered phone and another.
type SigninCodeSent struct {
	// ExpiresAt is when a code sent now expires.
	ExpiresAt time.Time
	// DemoCode is the code sent, in demo mode only ("" otherwise and when
	// no patient has the phone).
	DemoCode string
}

// SigninVerify checks Code, typed for Phone, from ClientAddr; on success
// Language (when set) becomes the patient's.
type SigninVerify struct {
	Phone      string
	Code       string
	ClientAddr string
	Language   string
}

// RequestSigninCode sends a new code to r.Phone when it is a patient's.
// Refusals: CodeInvalidRequest when r.Phone is not a phone number;
// CodeRateLimited (RetryAfter set) when the client address asked too
// often, the phone had its codes of 15 minutes or of the day, or the
// clinic's budget of codes is spent; CodeUnavailable when the channel
// failed in a way worth retrying. A code that no channel can deliver to
// the patient is answered as sent, as for an unknown phone.
func (g *Signin) RequestSigninCode(ctx context.Context, r SigninCodeRequest) (SigninCodeSent, error) {
	sent, outcome, err := g.requestCode(ctx, r)
	if g.observer != nil {
		g.observer.SigninCode(outcome)
	}
	return sent, err
}

func (g *Signin) requestCode(ctx context.Context, r SigninCodeRequest) (SigninCodeSent, string, error) {
	now := g.svc.now()
	ph := g.phoneOf(r.Phone)
	if ph == "" {
		return SigninCodeSent{}, SigninInvalid, &booking.Error{Code: booking.CodeInvalidRequest, Message: "phone is not a phone number", Err: ErrMalformedSignin}
	}
	if r.Channel != "" && r.Channel != notify.ChannelSMS && r.Channel != notify.ChannelEmail {
		return SigninCodeSent{}, SigninInvalid, &booking.Error{Code: booking.CodeInvalidRequest, Message: "channel must be sms or email", Err: ErrMalformedSignin}
	}
	// The address's limits and the budget's state come before the phone
	// is looked up, so that a refusal says nothing of who is a patient.
	if outcome, err := g.admitCode(r.ClientAddr, now); err != nil {
		return SigninCodeSent{}, outcome, err
	}
	patient, err := bounded(g.svc, ctx, func(ctx context.Context) (booking.Patient, error) {
		return g.accounts.PatientByPhone(ctx, ph)
	})
	known := err == nil
	if err != nil && booking.ErrorCode(err) != booking.CodeNotFound {
		return SigninCodeSent{}, SigninFailed, err
	}
	// Recorded for an unknown phone too (a code nobody is sent), so that
	// the phone's limits answer alike.
	key := g.phoneKeyOf(ph)
	code, sent, outcome, err := g.issueCode(ctx, key, now)
	if err != nil || !known {
		return sent, outcome, err
	}
	// Both addresses, so that each notifier reaches the patient its way
	// (SMTP by the e-mail, an SMS gateway by the phone).
	return g.sendCode(ctx, sent, notify.Message{
		Kind: notify.KindLoginCode, PatientID: patient.ID, PatientName: patient.Name, Language: r.Language,
		Phone: patient.Phone, Email: patient.Email, Code: code, Channel: r.Channel}, key, now)
}

// admitCode applies the client address's limits and the clinic's budget
// to a code request, and returns the outcome of a refusal.
func (g *Signin) admitCode(clientAddr string, now time.Time) (string, error) {
	if ok, wait := g.attempts.Allow(clientAddr, now); !ok {
		return SigninAddress, limited(wait, "too many sign-in attempts from this address")
	}
	if ok, wait := g.codeAddr.Allow(clientAddr, now); !ok {
		return SigninAddress, limited(wait, "too many sign-in codes were requested from this address")
	}
	if ok, wait := g.budget.Left(now); !ok {
		return SigninClinic, limited(wait, "too many sign-in codes are being sent: try again in a minute")
	}
	return "", nil
}

// issueCode records a new code under key within the address's limits of
// 15 minutes and of the day. The outcome is SigninUnknown on success (no
// code sent yet).
func (g *Signin) issueCode(ctx context.Context, key string, now time.Time) (string, SigninCodeSent, string, error) {
	code, err := newCode()
	if err != nil {
		return "", SigninCodeSent{}, SigninFailed, err
	}
	issue := accounts.IssueCode{PhoneKey: key, CodeHash: g.codeHashOf(key, code), Now: now, ExpiresAt: now.Add(accounts.CodeTTL),
		WindowStart: now.Add(-accounts.CodeWindow), MaxInWindow: accounts.CodeMaxPerPhone,
		DayStart: now.Add(-accounts.CodeDay), MaxInDay: accounts.CodeMaxPerPhoneDay}
	if _, err := bounded(g.svc, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, g.accounts.IssueLoginCode(ctx, issue)
	}); err != nil {
		if booking.ErrorCode(err) == booking.CodeRateLimited {
			return "", SigninCodeSent{}, SigninPhone, err
		}
		return "", SigninCodeSent{}, SigninFailed, err
	}
	return code, SigninCodeSent{ExpiresAt: issue.ExpiresAt}, SigninUnknown, nil
}

// sendCode sends msg, the code recorded under key, spending the clinic's
// budget: only a code sent spends it, so requests for unknown phones
// cannot lock the patients out.
func (g *Signin) sendCode(ctx context.Context, sent SigninCodeSent, msg notify.Message, key string, now time.Time) (SigninCodeSent, string, error) {
	if ok, wait := g.budget.Allow(now); !ok {
		return SigninCodeSent{}, SigninClinic, limited(wait, "too many sign-in codes are being sent: try again in a minute")
	}
	msg.IdempotencyKey = "login-" + key[:16] + "-" + strconv.FormatInt(now.UnixNano(), 36)
	// Nothing retries a code (the patient asks again): its one attempt
	// is its last, and its record fails with it.
	if err := g.notifier.Notify(FinalAttempt(ctx), msg); err != nil && notify.IsPermanent(err) {
		// No channel reaches this address, or the provider refuses it:
		// answered as for an unknown one, which is told no more (the
		// delivery record and the metrics say why).
		g.log.WarnContext(ctx, "sign-in: a code cannot reach the patient", "patientId", msg.PatientID, "err", notify.Reason(err))
		return sent, SigninFailed, nil
	} else if err != nil {
		// The code is stored; the patient may ask again within the limits.
		g.log.WarnContext(ctx, "sign-in: sending a code failed", "patientId", msg.PatientID, "err", err)
		return SigninCodeSent{}, SigninFailed, booking.Errorf(booking.CodeUnavailable, "the code could not be sent")
	}
	if g.demo {
		sent.DemoCode = msg.Code
	}
	return sent, SigninSent, nil
}

// VerifySigninCode checks v.Code and returns the patient it signs in.
// Refusals: CodeInvalidRequest for a malformed phone or code and for a
// wrong code; CodeNotFound when the phone has no live code (expired, used,
// none); CodeRateLimited when the code's wrong guesses ran out, the
// phone's (accounts.FailuresPerPhoneDay) or the clinic's (FailuresPerDay)
// wrong codes of the day ran out (until the day rolls), or the client
// address tried too often; booking.DepartedRefusal's for a deactivated or
// erased patient.
func (g *Signin) VerifySigninCode(ctx context.Context, v SigninVerify) (booking.Patient, error) {
	p, outcome, err := g.verify(ctx, v)
	if g.observer != nil {
		g.observer.SigninChecked(outcome)
	}
	return p, err
}

func (g *Signin) verify(ctx context.Context, v SigninVerify) (booking.Patient, string, error) {
	now := g.svc.now()
	ph, code := g.phoneOf(v.Phone), strings.TrimSpace(v.Code)
	if ph == "" || !codeShaped(code) {
		return booking.Patient{}, SigninInvalid, &booking.Error{Code: booking.CodeInvalidRequest, Message: "a phone number and a sign-in code of 6 digits are required", Err: ErrMalformedSignin}
	}
	if ok, wait := g.attempts.Allow(v.ClientAddr, now); !ok {
		return booking.Patient{}, SigninAddress, limited(wait, "too many sign-in attempts from this address")
	}
	if outcome, err := g.useCode(ctx, g.phoneKeyOf(ph), code, now); err != nil {
		return booking.Patient{}, outcome, err
	}
	patient, err := bounded(g.svc, ctx, func(ctx context.Context) (booking.Patient, error) {
		return g.accounts.PatientByPhone(ctx, ph)
	})
	if err != nil {
		return booking.Patient{}, SigninFailed, err
	}
	if refused := booking.DepartedRefusal(patient); refused != nil {
		return booking.Patient{}, SigninDeparted, refused // a departed patient's right code signs nobody in
	}
	return g.speaking(ctx, patient, v.Language), SigninAccepted, nil
}

// useCode uses the code typed for the address stored under key, counting
// a wrong one; it returns the outcome of a refusal.
func (g *Signin) useCode(ctx context.Context, key, code string, now time.Time) (string, error) {
	use := accounts.UseCode{PhoneKey: key, CodeHash: g.codeHashOf(key, code), Now: now, MaxAttempts: accounts.CodeMaxAttempts,
		MaxPhoneFailures: accounts.FailuresPerPhoneDay, MaxClinicFailures: g.failures}
	_, err := bounded(g.svc, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, g.accounts.UseLoginCode(ctx, use)
	})
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, booking.ErrPhoneDayFailures):
		return SigninPhoneDay, err
	case errors.Is(err, booking.ErrClinicDayFailures):
		return SigninClinicDay, err
	case booking.ErrorCode(err) == booking.CodeInvalidRequest:
		return SigninWrong, err
	case booking.ErrorCode(err) == booking.CodeNotFound:
		return SigninExpired, err
	case booking.ErrorCode(err) == booking.CodeRateLimited:
		return SigninAttempts, err
	default:
		return SigninFailed, err
	}
}

// speaking returns patient speaking lang from now on: the language the
// patient signed in with is the one their notifications will speak. A
// failure to remember it only logs.
func (g *Signin) speaking(ctx context.Context, patient booking.Patient, lang string) booking.Patient {
	if lang == "" || lang == patient.Language {
		return patient
	}
	if _, err := bounded(g.svc, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, g.accounts.SetPatientLanguage(ctx, patient.ID, lang)
	}); err != nil {
		g.log.WarnContext(ctx, "sign-in: remembering a patient's language failed", "patientId", patient.ID, "err", err)
		return patient
	}
	patient.Language = lang
	return patient
}

// phoneOf is a phone as typed, normalized (Service.NormalizePhone); ""
// when it is not one.
func (g *Signin) phoneOf(raw string) string {
	if len(raw) > MaxSigninInput {
		return ""
	}
	return g.svc.NormalizePhone(raw)
}

// limited is a rate-limited refusal that says when to try again.
func limited(wait time.Duration, msg string) error {
	return &booking.Error{Code: booking.CodeRateLimited, Message: msg, RetryAfter: max(wait, time.Second)}
}

// codeShaped reports whether code is CodeDigits ASCII digits.
func codeShaped(code string) bool {
	if len(code) != CodeDigits {
		return false
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// keyedHash is hex HMAC-SHA256 of the parts, joined by NUL bytes.
func keyedHash(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(m.Sum(nil))
}

// SigninPhoneKey is phoneKeyOf for key (derived with
// SigninPhoneKeyPurpose), for Options.LoginKey: an erasure deletes the
// patient's sign-in codes.
func SigninPhoneKey(key []byte) func(phone string) string {
	return func(phone string) string { return keyedHash(key, phone) }
}

// phoneKeyOf is the key under which a phone's codes are stored: the phone
// itself is never written to the login_codes table.
func (g *Signin) phoneKeyOf(phone string) string { return keyedHash(g.phoneKey, phone) }

// codeHashOf is the stored form of a code, bound to its phone so that a
// code hash copied to another phone's row is worthless.
func (g *Signin) codeHashOf(phoneKey, code string) string {
	return keyedHash(g.codeKey, phoneKey, code)
}

// newCode returns a uniformly random numeric code of CodeDigits digits.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%0*d", CodeDigits, n.Int64()), nil
}
