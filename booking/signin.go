package booking

import (
	"crypto/subtle"
	"errors"
	"time"
)

// LoginCode is the newest sign-in code of a phone, as the store holds it.
type LoginCode struct {
	Hash      string
	Attempts  int
	ExpiresAt time.Time
	Used      bool
}

// CodeUse is the answer to one typed sign-in code.
type CodeUse int

const (
	// CodeAccepted: the code is right; mark it used.
	CodeAccepted CodeUse = iota
	// CodeWrong: the code does not match; count one attempt (of the code,
	// of the phone's day and of the clinic's day).
	CodeWrong
	// CodeExhausted: the code's attempts ran out; nothing changes.
	CodeExhausted
	// CodeExpired: no code, or it expired or was used; nothing changes.
	CodeExpired
	// CodePhoneDayExhausted: the phone had its wrong codes of the day, over
	// all its codes; nothing changes until the day rolls.
	CodePhoneDayExhausted
	// CodeClinicDayExhausted: the clinic had its wrong codes of the day,
	// over every phone; nothing changes until the day rolls.
	CodeClinicDayExhausted
)

// CodeCheck is what DecideCodeUse decides on: the newest code of the
// phone (Found false when there is none), the typed code's hash, the clock
// and the limits, with the wrong codes already counted today for the phone
// and for the whole clinic (a zero Max is no limit).
type CodeCheck struct {
	Code        LoginCode
	Found       bool
	TypedHash   string
	Now         time.Time
	MaxAttempts int // wrong guesses allowed per code

	PhoneFailures, MaxPhoneFailures   int // wrong codes of the phone today
	ClinicFailures, MaxClinicFailures int // wrong codes of everyone today
}

// DecideCodeUse answers c.TypedHash against the newest code of the phone.
// Only the newest code counts: an older unused one never comes back. A day
// whose wrong codes ran out (the phone's, then the clinic's) refuses every
// code, even a right and fresh one, until SigninDay changes. A used code
// answers expired, whatever is typed.
func DecideCodeUse(c CodeCheck) CodeUse {
	switch {
	case c.MaxPhoneFailures > 0 && c.PhoneFailures >= c.MaxPhoneFailures:
		return CodePhoneDayExhausted
	case c.MaxClinicFailures > 0 && c.ClinicFailures >= c.MaxClinicFailures:
		return CodeClinicDayExhausted
	case !c.Found || c.Code.Used || !c.Now.Before(c.Code.ExpiresAt):
		return CodeExpired
	case c.Code.Attempts >= c.MaxAttempts:
		return CodeExhausted
	case subtle.ConstantTimeCompare([]byte(c.Code.Hash), []byte(c.TypedHash)) != 1:
		return CodeWrong
	}
	return CodeAccepted
}

// ErrPhoneDayFailures and ErrClinicDayFailures are the causes (errors.Is)
// of the refusals of a day whose wrong codes ran out, so that a front end
// or a metric can tell which limit refused.
var (
	ErrPhoneDayFailures  = errors.New("the phone's wrong sign-in codes of the day ran out")
	ErrClinicDayFailures = errors.New("the clinic's wrong sign-in codes of the day ran out")
)

// Err is the refusal of a decision taken at now, or nil when the code is
// accepted. A day's refusal waits until the next SigninDay.
func (u CodeUse) Err(now time.Time) error {
	switch u {
	case CodeWrong:
		return Errorf(CodeInvalidRequest, "the code is not the one we sent")
	case CodeExhausted:
		return Errorf(CodeRateLimited, "too many wrong codes: request a new one")
	case CodeExpired:
		return Errorf(CodeNotFound, "no valid sign-in code: request a new one")
	case CodePhoneDayExhausted:
		return &Error{Code: CodeRateLimited, Message: "too many wrong codes for this phone today",
			RetryAfter: SigninDayEnd(now).Sub(now), Err: ErrPhoneDayFailures}
	case CodeClinicDayExhausted:
		return &Error{Code: CodeRateLimited, Message: "too many wrong sign-in codes today: try again tomorrow",
			RetryAfter: SigninDayEnd(now).Sub(now), Err: ErrClinicDayFailures}
	}
	return nil
}

// SigninDay is the day (UTC, counted from the Unix epoch) under which the
// wrong sign-in codes at now are counted.
func SigninDay(now time.Time) int64 { return now.UTC().Unix() / 86400 }

// SigninDayEnd is when the day of now ends and its counts no longer apply.
func SigninDayEnd(now time.Time) time.Time {
	return time.Unix((SigninDay(now)+1)*86400, 0).UTC()
}
