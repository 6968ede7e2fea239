package accounts

import (
	"crypto/subtle"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// The staff second factor is RFC 6238 TOTP as authenticator apps make it:
// SHA-1, six digits, a 30-second step, a code of the step before or after
// accepted too (a phone's clock drifts, a code is typed late).
const (
	TOTPPeriod = 30
	TOTPDigits = 6
	TOTPIssuer = "slotd"
)

var totpOpts = totp.ValidateOpts{Period: TOTPPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewTOTP makes a new second factor for staff user name: the base32
// secret to store (SetStaffTOTP) and the otpauth:// URL an authenticator
// app reads (it holds the secret: show it once, never log it).
func NewTOTP(name string) (secret, url string, err error) {
	k, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: name,
		Period: TOTPPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return "", "", err
	}
	return k.Secret(), k.URL(), nil
}

// TOTPCode is the code of secret at t (for tests and tools).
func TOTPCode(secret string, t time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, t, totpOpts)
}

// TOTPStep returns the time step (Unix time / TOTPPeriod) whose code for
// secret is code, looking at the steps just before, at and just after now;
// false when none matches or code is not six digits (spaces are ignored).
// Every step is compared in constant time, so a near miss takes as long
// as a far one. The caller refuses a step not newer than the last one
// used (booking.DecideStaffAttempt), so that a code works once.
func TOTPStep(secret, code string, now time.Time) (int64, bool) {
	code = strings.ReplaceAll(code, " ", "")
	if len(code) != TOTPDigits || strings.Trim(code, "0123456789") != "" {
		return 0, false
	}
	var found int64
	for d := int64(-1); d <= 1; d++ {
		t := now.Add(time.Duration(d*TOTPPeriod) * time.Second)
		want, err := TOTPCode(secret, t)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && found == 0 {
			found = t.Unix() / TOTPPeriod
		}
	}
	return found, found != 0
}
