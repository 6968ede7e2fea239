package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// PaymentSignatureHeader carries the payment provider's signature of a
// callback (POST /api/payments/callback).
const PaymentSignatureHeader = "X-Slotd-Signature"

// SignPayment is the provider's signature of a callback's raw body under
// the shared secret: "sha256=" and the hex HMAC-SHA256. It is the one
// definition both the API's check and the demo's simulated provider use.
func SignPayment(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// VerifyPayment reports whether signature is SignPayment(secret, body),
// in constant time. Without a secret nothing verifies: an unauthenticated
// payment endpoint would let anyone book without paying.
func VerifyPayment(secret, body []byte, signature string) bool {
	if len(secret) == 0 {
		return false
	}
	sig, ok := strings.CutPrefix(signature, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}
