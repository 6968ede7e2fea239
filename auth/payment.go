package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// PaymentSignatureHeader carries the payment provider's signature of a
// callback (POST /api/payments/callback).
const PaymentSignatureHeader = "X-Slotd-Signature"

// PaymentMaxSkew is how far a callback's signed timestamp may lie from the
// receiver's clock, either way: an older callback is a replay (or one held
// back), a later one a forgery or a broken clock. Within it the trade
// number makes a repeat a no-op.
const PaymentMaxSkew = 5 * time.Minute

// PaymentTimely reports whether a callback signed at unix second ts may be
// accepted at now (PaymentMaxSkew).
func PaymentTimely(ts int64, now time.Time) bool {
	d := now.Sub(time.Unix(ts, 0))
	return d <= PaymentMaxSkew && d >= -PaymentMaxSkew
}

// SignPayment is the provider's signature of a callback's raw body under
// the shared secret: "sha256=" and the hex HMAC-SHA256. The body carries
// the callback's timestamp and currency, so the signature covers them too.
// It is the one definition both the API's check and the demo's simulated
// provider use.
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
