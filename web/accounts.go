package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// Accounts is what the web UI needs from the database beyond booking.Store:
// patients found by phone, one-time sign-in codes and staff users. Both
// stores implement it (postgres/accounts.go, sqlite/accounts.go) and
// web/accountstest holds them to the same behaviour.
//
// Errors are *booking.Error for conditions a page can explain (not found,
// rate limited) and wrap booking.ErrUnavailable when the database is down.
// Phone numbers and codes are personal data and secrets: implementations
// never log them, and store codes only as the keyed hashes they are given.
type Accounts interface {
	// PatientByPhone finds the patient whose phone, with spaces, dashes,
	// dots and brackets removed, equals phone (as NormalizePhone returns
	// it); the oldest such patient if several. Not found otherwise.
	PatientByPhone(ctx context.Context, phone string) (booking.Patient, error)
	// ListPatients lists up to limit patients with ids above afterID, by id.
	ListPatients(ctx context.Context, afterID int64, limit int) ([]booking.Patient, error)
	// DoctorAppointments lists the appointments (any state) in a doctor's
	// slots starting in [from, to), by slot start and queue number.
	DoctorAppointments(ctx context.Context, doctorID int64, from, to time.Time) ([]booking.Appointment, error)

	// IssueLoginCode records a sign-in code's hash for phoneKey, valid until
	// expiresAt, unless maxInWindow codes were issued for phoneKey after
	// windowStart: then it records nothing and returns CodeRateLimited with
	// RetryAfter set.
	IssueLoginCode(ctx context.Context, phoneKey, codeHash string, now, expiresAt, windowStart time.Time, maxInWindow int) error
	// UseLoginCode consumes the newest unused, unexpired code of phoneKey
	// when its hash equals codeHash. Every call counts one attempt against
	// that code first. It returns nil on success, CodeNotFound when there is
	// no valid code, CodeInvalidRequest for a wrong code and CodeRateLimited
	// once maxAttempts were used.
	UseLoginCode(ctx context.Context, phoneKey, codeHash string, now time.Time, maxAttempts int) error

	// SetStaffPassword creates a staff user or replaces its password hash
	// (a bcrypt hash).
	SetStaffPassword(ctx context.Context, name string, hash []byte, now time.Time) error
	// StaffPasswordHash returns a staff user's password hash, or not found.
	StaffPasswordHash(ctx context.Context, name string) ([]byte, error)
}

// Sign-in code policy.
const (
	CodeTTL         = 5 * time.Minute  // a code is valid this long
	CodeMaxAttempts = 5                // wrong guesses allowed per code
	CodeMaxPerPhone = 3                // codes sent per phone per CodeWindow
	CodeWindow      = 15 * time.Minute // the window of CodeMaxPerPhone
	codeDigits      = 6
)

// NormalizePhone removes spaces, dashes, dots and brackets from a phone
// number and checks what is left: an optional leading "+" and 6 to 20
// digits. It returns "" for anything else.
func NormalizePhone(p string) string {
	var b strings.Builder
	for i, c := range strings.TrimSpace(p) {
		switch {
		case c >= '0' && c <= '9':
			b.WriteRune(c)
		case c == '+' && i == 0:
			b.WriteRune(c)
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')':
		default:
			return ""
		}
	}
	out := b.String()
	digits := len(strings.TrimPrefix(out, "+"))
	if digits < 6 || digits > 20 {
		return ""
	}
	return out
}

// StaffNameOK reports whether name is a usable staff user name: 1 to 64
// letters, digits, dots, dashes or underscores.
func StaffNameOK(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
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

// phoneKeyOf is the key under which a phone's codes are stored: the phone
// itself is never written to the login_codes table.
func (s *server) phoneKeyOf(phone string) string { return keyedHash(s.phoneKey, phone) }

// codeHashOf is the stored form of a code, bound to its phone so that a
// code hash copied to another phone's row is worthless.
func (s *server) codeHashOf(phoneKey, code string) string {
	return keyedHash(s.codeKey, phoneKey, code)
}

// newCode returns a uniformly random numeric code of codeDigits digits.
func newCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%0*d", codeDigits, n.Int64()), nil
}
