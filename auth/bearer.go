package auth

import (
	"errors"
	"net/http"
	"strings"
)

// ErrNoToken is returned by FromRequest when the request carries no
// Authorization header; ErrBadHeader when it is not one "Bearer <token>".
var (
	ErrNoToken   = errors.New("a bearer token is required")
	ErrBadHeader = errors.New(`the Authorization header must be "Bearer <token>"`)
)

// FromRequest returns the verified caller of r from its one
// "Authorization: Bearer <token>" header, for adapters other than the JSON
// API (FHIR, iCalendar) that accept the same tokens. A patient token whose
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
