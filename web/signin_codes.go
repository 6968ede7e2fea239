package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/slotd/slotd/auth"
)

// codeDigits is the length of a sign-in code (accounts has the policy).
const codeDigits = 6

// keyedHash is hex HMAC-SHA256 of the parts, joined by NUL bytes.
func keyedHash(key []byte, parts ...string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(m.Sum(nil))
}

// phoneKeyOf is the key under which a phone's codes are stored: the phone
// itself is never written to the login_codes table.
func (s *server) phoneKeyOf(phone string) string { return keyedHash(s.phoneKey, phone) }

// loginPhonePurpose derives the key of phoneKeyOf from the signer's secret.
const loginPhonePurpose = "web-login-phone"

// LoginKey is phoneKeyOf for the Service (service.Options.LoginKey), so
// that a patient's erasure deletes their sign-in codes.
func LoginKey(signer *auth.Signer) func(phone string) string {
	key := signer.DeriveKey(loginPhonePurpose)
	return func(phone string) string { return keyedHash(key, phone) }
}

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
