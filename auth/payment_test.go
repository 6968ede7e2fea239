package auth

import (
	"strings"
	"testing"
	"time"
)

func TestPaymentSignature(t *testing.T) {
	secret, body := []byte("key"), []byte("The quick brown fox jumps over the lazy dog")
	// RFC 2104 / Wikipedia's HMAC-SHA256 example.
	const want = "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
	sig := SignPayment(secret, body)
	if sig != want {
		t.Fatalf("SignPayment = %s, want %s", sig, want)
	}
	if !VerifyPayment(secret, body, sig) {
		t.Fatal("a provider's signature does not verify")
	}
	for name, bad := range map[string]string{
		"bare hex":     strings.TrimPrefix(sig, "sha256="),
		"not hex":      "sha256=zz",
		"other body":   SignPayment(secret, []byte("other")),
		"other secret": SignPayment([]byte("other"), body),
		"empty":        "",
	} {
		if VerifyPayment(secret, body, bad) {
			t.Errorf("%s verifies", name)
		}
	}
	if VerifyPayment(nil, body, SignPayment(nil, body)) {
		t.Error("without a secret a signature verifies")
	}
}

func TestPaymentTimely(t *testing.T) {
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]bool{
		0: true, -PaymentMaxSkew: true, PaymentMaxSkew: true,
		-PaymentMaxSkew - time.Second: false, PaymentMaxSkew + time.Second: false,
		-24 * time.Hour: false, 24 * time.Hour: false,
	} {
		if got := PaymentTimely(now.Add(d).Unix(), now); got != want {
			t.Errorf("signed %v from now: timely %v, want %v", d, got, want)
		}
	}
	if PaymentTimely(0, now) {
		t.Error("timestamp 0 is timely")
	}
}
