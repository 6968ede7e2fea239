package auth

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// A remembered token is accepted exactly in the window Verify accepts it:
// not after its expiry (plus leeway), not before its issue time (minus
// leeway), and a token that differs by one character is verified afresh.
func TestVerifiedWindow(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s := newTestSigner(t, now)
	tok, _ := s.Mint(RolePatient, "7", time.Minute)
	if c, err := s.Verify(tok); err != nil || c.Subject != "7" {
		t.Fatalf("verify: %+v %v", c, err)
	}
	if _, ok := s.seen.get(AudienceAPI, tok, now); !ok {
		t.Fatal("a verified token is not remembered")
	}
	if c, err := s.Verify(tok); err != nil || c.Subject != "7" || c.Role != RolePatient {
		t.Fatalf("remembered: %+v %v", c, err)
	}
	tampered := tok[:len(tok)-2] + string("AB"[len(tok)%2]) + tok[len(tok)-1:]
	if _, err := s.Verify(tampered); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("tampered token: %v", err)
	}
	s.now = func() time.Time { return now.Add(time.Minute + leeway) }
	if _, err := s.Verify(tok); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("expired token accepted: %v", err)
	}
	s.now = func() time.Time { return now.Add(-leeway - time.Second) }
	if _, err := s.Verify(tok); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("token from the future accepted: %v", err)
	}
}

// The memory is bounded: past maxVerified tokens it forgets, and the
// tokens still verify.
func TestVerifiedBounded(t *testing.T) {
	var v verified
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	for i := range maxVerified + 10 {
		v.put(AudienceAPI, fmt.Sprint("t", i), Claims{Role: RolePatient, Subject: "1"}, now, now.Add(time.Hour), now)
	}
	if n := len(v.m); n > maxVerified {
		t.Fatalf("%d tokens remembered, at most %d", n, maxVerified)
	}
}
