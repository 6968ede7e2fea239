package auth_test

import (
	"net/url"
	"testing"

	"github.com/slotd/slotd/auth"
)

// TestTwilioSignature checks the signature against the example of
// Twilio's own helper libraries.
func TestTwilioSignature(t *testing.T) {
	u := "https://mycompany.com/myapp.php?foo=1&bar=2"
	p := url.Values{"CallSid": {"CA1234567890ABCDE"}, "Caller": {"+14158675309"}, "Digits": {"1234"},
		"From": {"+14158675309"}, "To": {"+18005551212"}}
	const want = "RSOYDt4T1cUTdK1PDd93/VVr8B8="
	if got := auth.TwilioSignature("12345", u, p); got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
	if !auth.VerifyTwilioSignature("12345", u, p, want) {
		t.Fatal("the right signature is refused")
	}
	p.Set("Digits", "1235")
	for name, ok := range map[string]bool{
		"changed param": auth.VerifyTwilioSignature("12345", u, p, want),
		"other url":     auth.VerifyTwilioSignature("12345", u+"&x=1", p, want),
		"no header":     auth.VerifyTwilioSignature("12345", u, p, ""),
		"no token":      auth.VerifyTwilioSignature("", u, p, want),
	} {
		if ok {
			t.Fatalf("%s: verified", name)
		}
	}
}
