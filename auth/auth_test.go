package auth

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func newTestSigner(t *testing.T, now time.Time) *Signer {
	t.Helper()
	s, err := NewSigner(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now }
	return s
}

func TestNewSignerRefusesShortSecret(t *testing.T) {
	if _, err := NewSigner([]byte("short")); err == nil {
		t.Fatal("short secret accepted")
	}
	if _, err := NewSigner(testSecret[:31]); err == nil {
		t.Fatal("31-byte secret accepted")
	}
	if _, err := NewSigner(testSecret); err != nil {
		t.Fatal(err)
	}
}

func TestMintVerifyRoundTrip(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s := newTestSigner(t, now)
	for _, role := range []Role{RolePatient, RoleDoctor, RoleAdmin} {
		tok, err := s.Mint(role, "42", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Verify(tok)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if c.Role != role || c.Subject != "42" {
			t.Fatalf("got %+v", c)
		}
	}
}

func TestMintDefaultTTLAndClaims(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s := newTestSigner(t, now)
	tok, err := s.Mint(RolePatient, "7", 0)
	if err != nil {
		t.Fatal(err)
	}
	var c tokenClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
		t.Fatal(err)
	}
	if !c.ExpiresAt.Time.Equal(now.Add(24*time.Hour)) || !c.IssuedAt.Time.Equal(now) || c.Subject != "7" || c.Role != RolePatient {
		t.Fatalf("claims %+v", c)
	}
	// Still valid just before 24h, refused after (plus leeway).
	s.now = func() time.Time { return now.Add(24*time.Hour - time.Second) }
	if _, err := s.Verify(tok); err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return now.Add(24*time.Hour + time.Minute) }
	if _, err := s.Verify(tok); err == nil {
		t.Fatal("expired token accepted")
	}
}

func TestMintRefusesBadInput(t *testing.T) {
	s := newTestSigner(t, time.Now())
	if _, err := s.Mint("root", "1", 0); err == nil {
		t.Fatal("unknown role minted")
	}
	if _, err := s.Mint(RoleAdmin, "", 0); err == nil {
		t.Fatal("empty subject minted")
	}
	if _, err := s.Mint(RoleAdmin, "1", -time.Second); err == nil {
		t.Fatal("negative ttl minted")
	}
}

func TestVerifyLeeway(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s := newTestSigner(t, now)
	tok, _ := s.Mint(RoleAdmin, "1", time.Minute)
	s.now = func() time.Time { return now.Add(time.Minute + 10*time.Second) }
	if _, err := s.Verify(tok); err != nil {
		t.Fatalf("within leeway: %v", err)
	}
	// A token issued slightly in the future (clock skew) is accepted too.
	s.now = func() time.Time { return now.Add(-10 * time.Second) }
	if _, err := s.Verify(tok); err != nil {
		t.Fatalf("iat skew within leeway: %v", err)
	}
}

func sign(t *testing.T, method jwt.SigningMethod, key any, claims jwt.Claims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestVerifyRefuses(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s := newTestSigner(t, now)
	good := func(role Role, sub string) tokenClaims {
		return tokenClaims{Role: role, RegisteredClaims: jwt.RegisteredClaims{
			Issuer: Issuer, Audience: jwt.ClaimStrings{string(AudienceAPI)},
			Subject: sub, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
		}}
	}
	valid := sign(t, jwt.SigningMethodHS256, testSecret, good(RoleAdmin, "1"))
	parts := strings.Split(valid, ".")
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))

	noExp := good(RoleAdmin, "1")
	noExp.ExpiresAt = nil
	expired := good(RoleAdmin, "1")
	expired.ExpiresAt = jwt.NewNumericDate(now.Add(-time.Hour))
	future := good(RoleAdmin, "1")
	future.IssuedAt = jwt.NewNumericDate(now.Add(time.Hour))
	pages := good(RoleAdmin, "1")
	pages.Audience = jwt.ClaimStrings{string(AudiencePages)}
	otherIssuer := good(RoleAdmin, "1")
	otherIssuer.Issuer = "someone-else"

	cases := map[string]string{
		"empty":         "",
		"garbage":       "not.a.token",
		"wrong secret":  sign(t, jwt.SigningMethodHS256, []byte("another-secret-another-secret-xx"), good(RoleAdmin, "1")),
		"HS512":         sign(t, jwt.SigningMethodHS512, testSecret, good(RoleAdmin, "1")),
		"alg none":      noneHeader + "." + parts[1] + ".",
		"alg none sig":  noneHeader + "." + parts[1] + "." + parts[2],
		"tampered":      parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"role":"admin","sub":"2","exp":9999999999}`)) + "." + parts[2],
		"no exp":        sign(t, jwt.SigningMethodHS256, testSecret, noExp),
		"expired":       sign(t, jwt.SigningMethodHS256, testSecret, expired),
		"issued later":  sign(t, jwt.SigningMethodHS256, testSecret, future),
		"unknown role":  sign(t, jwt.SigningMethodHS256, testSecret, good("superuser", "1")),
		"empty role":    sign(t, jwt.SigningMethodHS256, testSecret, good("", "1")),
		"empty subject": sign(t, jwt.SigningMethodHS256, testSecret, good(RoleAdmin, "")),
		"page audience": sign(t, jwt.SigningMethodHS256, testSecret, pages),
		"other issuer":  sign(t, jwt.SigningMethodHS256, testSecret, otherIssuer),
	}
	for name, tok := range cases {
		if c, err := s.Verify(tok); err == nil {
			t.Errorf("%s: accepted as %+v", name, c)
		}
	}
	if _, err := s.Verify(valid); err != nil {
		t.Fatalf("valid token refused: %v", err)
	}
}

func TestPatientID(t *testing.T) {
	cases := []struct {
		c  Claims
		id int64
		ok bool
	}{
		{Claims{Role: RolePatient, Subject: "42"}, 42, true},
		{Claims{Role: RolePatient, Subject: "0"}, 0, false},
		{Claims{Role: RolePatient, Subject: "-3"}, 0, false},
		{Claims{Role: RolePatient, Subject: "abc"}, 0, false},
		{Claims{Role: RolePatient, Subject: "99999999999999999999"}, 0, false},
		{Claims{Role: RoleAdmin, Subject: "42"}, 0, false},
		{Claims{Role: RoleDoctor, Subject: "42"}, 0, false},
	}
	for _, tc := range cases {
		id, ok := tc.c.PatientID()
		if id != tc.id || ok != tc.ok {
			t.Errorf("%+v: got %d %v", tc.c, id, ok)
		}
	}
}

func TestLoadOrCreateSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	path := filepath.Join(dir, "auth.secret")
	s1, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s1) != 64 {
		t.Fatalf("secret length %d, want 64 hex chars", len(s1))
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", fi.Mode().Perm())
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", di.Mode().Perm())
	}
	s2, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s1, s2) {
		t.Fatal("second load returned another secret")
	}
	if _, err := NewSigner(s2); err != nil {
		t.Fatal(err)
	}
	// A third file gets a different secret.
	s3, err := LoadOrCreateSecret(filepath.Join(dir, "other.secret"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(s1, s3) {
		t.Fatal("two generated secrets are equal")
	}
}

func TestLoadOrCreateSecretRefusesReadableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.secret")
	if err := os.WriteFile(path, []byte(strings.Repeat("a", 64)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(path); err == nil {
		t.Fatal("world-readable secret accepted")
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(path); err == nil {
		t.Fatal("group-readable secret accepted")
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.Repeat("a", 64) {
		t.Fatalf("got %q", got)
	}
}

func TestLoadOrCreateSecretRefusesShortFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.secret")
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(path); err == nil {
		t.Fatal("short secret file accepted")
	}
}

func TestDeriveKey(t *testing.T) {
	a, _ := NewSigner([]byte("0123456789abcdef0123456789abcdef"))
	b, _ := NewSigner([]byte("0123456789abcdef0123456789abcdeX"))
	k1, k2 := a.DeriveKey("web-csrf"), a.DeriveKey("web-code")
	if len(k1) != 32 || string(k1) == string(k2) {
		t.Fatalf("keys for two purposes must differ and be 32 bytes")
	}
	if string(a.DeriveKey("web-csrf")) != string(k1) {
		t.Fatal("DeriveKey must be deterministic")
	}
	if string(b.DeriveKey("web-csrf")) == string(k1) {
		t.Fatal("another secret must give another key")
	}
}

// A token says who issued it and for what: the API's tokens and the pages'
// session cookies have different audiences, and neither is accepted as the
// other, even once remembered.
func TestAudienceSeparatesPagesFromAPI(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	s := newTestSigner(t, now)
	tok, err := s.Mint(RolePatient, "7", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var c jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &c); err != nil {
		t.Fatal(err)
	}
	if c.Issuer != Issuer || len(c.Audience) != 1 || c.Audience[0] != string(AudienceAPI) {
		t.Fatalf("API token: iss %q aud %q, want %q %q", c.Issuer, c.Audience, Issuer, AudienceAPI)
	}
	page, err := s.MintPage(RolePatient, "7", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second time from the verification memory
		if _, err := s.Verify(tok); err != nil {
			t.Fatalf("API token refused: %v", err)
		}
		if _, err := s.VerifyPage(page); err != nil {
			t.Fatalf("page session refused: %v", err)
		}
		if _, err := s.Verify(page); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("a page session was accepted as a bearer token: %v", err)
		}
		if _, err := s.VerifyPage(tok); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("a bearer token was accepted as a page session: %v", err)
		}
	}
	// A token from before audiences (no iss, no aud) is refused by both.
	old := jwt.NewWithClaims(jwt.SigningMethodHS256, tokenClaims{Role: RolePatient, RegisteredClaims: jwt.RegisteredClaims{
		Subject: "7", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour))}})
	raw, _ := old.SignedString(testSecret)
	if _, err := s.Verify(raw); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("a token without audience was accepted: %v", err)
	}
}

// TestIssuedToTheMicrosecond: a token says when it was minted to the
// microsecond (iat_us), through the verification cache too; a token
// without it counts as minted at the start of its iat second, so that a
// revocation mark later in that second still refuses it.
func TestIssuedToTheMicrosecond(t *testing.T) {
	now := time.Date(2026, 3, 2, 7, 0, 0, 123456789, time.UTC)
	s := newTestSigner(t, now)
	tok, err := s.Mint(RolePatient, "42", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // parsed, then remembered
		c, err := s.Verify(tok)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Truncate(time.Microsecond); !c.Issued.Equal(want) {
			t.Fatalf("Issued %v, want %v", c.Issued, want)
		}
	}
	old := sign(t, jwt.SigningMethodHS256, testSecret, tokenClaims{Role: RolePatient, RegisteredClaims: jwt.RegisteredClaims{
		Issuer: Issuer, Audience: jwt.ClaimStrings{string(AudienceAPI)}, Subject: "42",
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Hour)),
	}})
	c, err := s.Verify(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Truncate(time.Second); !c.Issued.Equal(want) {
		t.Fatalf("a token without iat_us: Issued %v, want the start of its second %v", c.Issued, want)
	}
}
