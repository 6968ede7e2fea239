// Package auth issues and verifies slotd's bearer tokens: HS256 JWTs whose
// subject names the caller and whose role claim says what the caller may do;
// and it defines the payment provider's callback signature (payment.go).
//
// Identity always comes from a verified token, never from a request body.
package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Role is what a caller may do.
type Role string

// The roles. A patient's subject is its patient id.
const (
	RolePatient   Role = "patient"
	RoleDoctor    Role = "doctor"
	RoleAdmin     Role = "admin"
	RoleReception Role = "reception" // the front desk (booking.Desk)
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	switch r {
	case RolePatient, RoleDoctor, RoleAdmin, RoleReception:
		return true
	}
	return false
}

// Claims is the verified identity carried by a token.
type Claims struct {
	Role    Role
	Subject string
	// Issued is when the token was minted, to the microsecond (the iat_us
	// claim; a token without it is taken as issued at the start of its iat
	// second, so that a revocation mark in that second still wins). The
	// Service compares it with the subject's revocation mark on every
	// request (service.Service.Admit).
	Issued time.Time
}

// PatientID returns the patient id of a patient token. It is false for other
// roles and for a subject that is not a positive integer, so a malformed
// token can never act as patient 0.
func (c Claims) PatientID() (int64, bool) {
	if c.Role != RolePatient {
		return 0, false
	}
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// MinSecretLen is the shortest HMAC secret accepted: 256 bits, the size of
// the HS256 output, as RFC 7518 §3.2 requires.
const MinSecretLen = 32

// DefaultTTL is the lifetime of a token minted with ttl 0.
const DefaultTTL = 24 * time.Hour

// leeway tolerates small clock differences between the minting and the
// verifying machine.
const leeway = 30 * time.Second

// ErrInvalidToken is returned (wrapped) by Verify for every token it refuses;
// the cause is for logs, never for clients.
var ErrInvalidToken = errors.New("invalid token")

// Issuer is every token's iss claim.
const Issuer = "slotd"

// Audience is what a token is for (its aud claim): a bearer token for the
// API, or a session cookie for the pages. Each is refused as the other, so
// a session cookie lifted from a browser is no API credential and an API
// token pasted into a cookie is no page session.
type Audience string

// The audiences.
const (
	AudienceAPI   Audience = "slotd-api"
	AudiencePages Audience = "slotd-pages"
)

// Signer mints and verifies tokens with one HMAC secret.
type Signer struct {
	secret []byte
	now    func() time.Time
	seen   verified
}

// NewSigner returns a Signer over secret, refusing secrets shorter than
// MinSecretLen bytes because a short HMAC key can be brute-forced offline
// from any token.
func NewSigner(secret []byte) (*Signer, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: secret is %d bytes, at least %d are required", len(secret), MinSecretLen)
	}
	return &Signer{secret: append([]byte(nil), secret...), now: time.Now}, nil
}

// tokenClaims is the JWT payload: the registered claims plus the role.
type tokenClaims struct {
	Role Role `json:"role"`
	// IssuedMicros is the issue time in microseconds since the epoch: iat
	// has whole seconds only, too coarse to order a token against a
	// sign-out in the same second.
	IssuedMicros int64 `json:"iat_us,omitempty"`
	jwt.RegisteredClaims
}

// Mint returns a signed API bearer token for sub in role, valid for ttl
// (DefaultTTL when 0).
func (s *Signer) Mint(role Role, sub string, ttl time.Duration) (string, error) {
	return s.mint(AudienceAPI, role, sub, ttl)
}

// MintPage returns a signed page session for sub in role, valid for ttl
// (DefaultTTL when 0): the web UI's cookie, which the API refuses.
func (s *Signer) MintPage(role Role, sub string, ttl time.Duration) (string, error) {
	return s.mint(AudiencePages, role, sub, ttl)
}

func (s *Signer) mint(aud Audience, role Role, sub string, ttl time.Duration) (string, error) {
	if !role.Valid() {
		return "", fmt.Errorf("auth: unknown role %q", role)
	}
	if sub == "" {
		return "", errors.New("auth: empty subject")
	}
	if ttl < 0 {
		return "", errors.New("auth: negative ttl")
	}
	if ttl == 0 {
		ttl = DefaultTTL
	}
	now := s.now()
	c := tokenClaims{
		Role:         role,
		IssuedMicros: now.UnixMicro(),
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    Issuer,
			Audience:  jwt.ClaimStrings{string(aud)},
			Subject:   sub,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(s.secret)
}

// Verify checks an API bearer token's signature, algorithm, issuer,
// audience and expiry and returns its claims. Only HS256 is accepted so
// that "alg: none" or an algorithm switch cannot bypass the signature; a
// token without exp, for another audience, or with an unknown role or
// empty subject, is refused.
func (s *Signer) Verify(token string) (Claims, error) { return s.verify(AudienceAPI, token) }

// VerifyPage is Verify for a page session cookie.
func (s *Signer) VerifyPage(token string) (Claims, error) { return s.verify(AudiencePages, token) }

func (s *Signer) verify(aud Audience, token string) (Claims, error) {
	now := s.now()
	if c, ok := s.seen.get(aud, token, now); ok {
		return c, nil
	}
	var c tokenClaims
	_, err := jwt.ParseWithClaims(token, &c,
		func(*jwt.Token) (any, error) { return s.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(s.now),
		jwt.WithIssuer(Issuer),
		jwt.WithAudience(string(aud)),
	)
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if !c.Role.Valid() {
		return Claims{}, fmt.Errorf("%w: unknown role %q", ErrInvalidToken, c.Role)
	}
	if c.Subject == "" {
		return Claims{}, fmt.Errorf("%w: empty subject", ErrInvalidToken)
	}
	claims := Claims{Role: c.Role, Subject: c.Subject}
	from := time.Time{}
	if c.IssuedAt != nil {
		from = c.IssuedAt.Add(-leeway)
		claims.Issued = c.IssuedAt.Time.UTC()
	}
	if c.IssuedMicros > 0 {
		claims.Issued = time.UnixMicro(c.IssuedMicros).UTC()
	}
	s.seen.put(aud, token, claims, from, c.ExpiresAt.Add(leeway), now)
	return claims, nil
}

// DeriveKey returns a 32-byte key for one purpose (such as "web-csrf"),
// derived from the signer's secret with HMAC-SHA256, so that other parts of
// the service (the web UI's CSRF tokens and login-code hashes) get keys that
// every instance sharing the secret agrees on, without ever using the token
// secret itself for another purpose.
func (s *Signer) DeriveKey(purpose string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte("slotd derived key\x00" + purpose))
	return m.Sum(nil)
}

// LoadOrCreateSecret returns the secret kept in the file at path, creating
// it (32 random bytes, hex encoded, mode 0600, its directory 0700) when it
// does not exist. A file that group or others may read is refused: anyone
// who reads it can mint admin tokens.
func LoadOrCreateSecret(path string) ([]byte, error) {
	secret, err := readSecret(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return secret, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("auth: create secret directory: %w", err)
	}
	raw := make([]byte, MinSecretLen)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("auth: generate secret: %w", err)
	}
	enc := []byte(hex.EncodeToString(raw))
	// O_EXCL so that two processes starting together do not overwrite each
	// other's secret: the loser reads the winner's.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return readSecret(path)
	}
	if err != nil {
		return nil, fmt.Errorf("auth: create secret: %w", err)
	}
	if _, err := f.Write(append(enc, '\n')); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("auth: write secret: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("auth: write secret: %w", err)
	}
	return enc, nil
}

// readSecret reads and checks an existing secret file.
func readSecret(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("auth: secret %s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("auth: secret %s has mode %v; it must not be accessible to group or others (chmod 600)", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: read secret: %w", err)
	}
	secret := []byte(strings.TrimSpace(string(b)))
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("auth: secret %s is shorter than %d bytes", path, MinSecretLen)
	}
	return secret, nil
}

// DoctorID returns the doctor id of a doctor token (its subject), false for
// other roles and malformed subjects: a doctor reaches only that doctor's
// data.
func (c Claims) DoctorID() (int64, bool) {
	if c.Role != RoleDoctor {
		return 0, false
	}
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}
