package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/slotd/slotd/booking"
)

// ErrNoToken is returned by FromRequest when the request carries no
// Authorization header; ErrBadHeader when it is not one "Bearer <token>".
var (
	ErrNoToken   = errors.New("a bearer token is required")
	ErrBadHeader = errors.New(`the Authorization header must be "Bearer <token>"`)
)

// Caller is FromRequest as every front end answers it: a refusal is
// unauthorized, saying what was wrong with the header but never why a token
// was refused (that would help forgers).
func (s *Signer) Caller(r *http.Request) (Claims, error) {
	c, err := s.FromRequest(r)
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, ErrNoToken):
		return c, booking.Errorf(booking.CodeUnauthorized, "a bearer token is required")
	case errors.Is(err, ErrBadHeader):
		return c, booking.Errorf(booking.CodeUnauthorized, `the Authorization header must be "Bearer <token>"`)
	}
	return c, booking.Errorf(booking.CodeUnauthorized, "the bearer token is invalid or expired")
}

// FromRequest returns the verified caller of r from its one
// "Authorization: Bearer <token>" header, the same for every adapter. A patient token whose
// subject is not a patient id is invalid. Errors wrap ErrNoToken,
// ErrBadHeader or ErrInvalidToken; why a token was refused is for logs.
func (s *Signer) FromRequest(r *http.Request) (Claims, error) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 {
		return Claims{}, ErrNoToken
	}
	scheme, token, ok := strings.Cut(h[0], " ")
	if len(h) != 1 || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return Claims{}, ErrBadHeader
	}
	c, err := s.Verify(strings.TrimSpace(token))
	if err != nil {
		return Claims{}, err
	}
	if c.Role == RolePatient {
		if _, ok := c.PatientID(); !ok {
			return Claims{}, ErrInvalidToken
		}
	}
	return c, nil
}
