package auth

import (
	"strings"
	"testing"
	"time"
)

// FuzzVerify feeds Verify arbitrary tokens (seeds in testdata/fuzz/FuzzVerify:
// a valid one, alg none, other algorithms, truncations): it never panics,
// and whatever it accepts has a known role and a subject, and verifies again
// the same way.
func FuzzVerify(f *testing.F) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s, err := NewSigner([]byte(strings.Repeat("k", MinSecretLen)))
	if err != nil {
		f.Fatal(err)
	}
	s.now = func() time.Time { return now }
	for _, r := range []Role{RolePatient, RoleDoctor, RoleAdmin} {
		tok, err := s.Mint(r, "42", time.Hour)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tok)
		f.Add(tok[:len(tok)-1])
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := s.Verify(token)
		if err != nil {
			return
		}
		if !c.Role.Valid() || c.Subject == "" {
			t.Fatalf("accepted %q with claims %+v", token, c)
		}
		if again, err := s.Verify(token); err != nil || again != c {
			t.Fatalf("verifying %q twice: %+v then %+v, %v", token, c, again, err)
		}
	})
}
