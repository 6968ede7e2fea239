package booking

import (
	"crypto/subtle"
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
	// CodeWrong: the code does not match; count one attempt.
	CodeWrong
	// CodeExhausted: the attempts ran out; nothing changes.
	CodeExhausted
	// CodeExpired: no code, or it expired or was used; nothing changes.
	CodeExpired
)

// DecideCodeUse answers typedHash against c, the newest code of the phone
// (found false when there is none), at now with maxAttempts guesses a
// code. Only the newest code counts: an older unused one never comes back.
// A used code answers expired, whatever is typed.
func DecideCodeUse(c LoginCode, found bool, typedHash string, now time.Time, maxAttempts int) CodeUse {
	switch {
	case !found || c.Used || !now.Before(c.ExpiresAt):
		return CodeExpired
	case c.Attempts >= maxAttempts:
		return CodeExhausted
	case subtle.ConstantTimeCompare([]byte(c.Hash), []byte(typedHash)) != 1:
		return CodeWrong
	}
	return CodeAccepted
}

// Err is the refusal of a decision, or nil when the code is accepted.
func (u CodeUse) Err() error {
	switch u {
	case CodeWrong:
		return Errorf(CodeInvalidRequest, "the code is not the one we sent")
	case CodeExhausted:
		return Errorf(CodeRateLimited, "too many wrong codes: request a new one")
	case CodeExpired:
		return Errorf(CodeNotFound, "no valid sign-in code: request a new one")
	}
	return nil
}
