package auth

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/url"
	"sort"
)

// TwilioSignatureHeader carries Twilio's signature of a callback (POST
// /api/sms/twilio/status).
const TwilioSignatureHeader = "X-Twilio-Signature"

// TwilioSignature is the X-Twilio-Signature of a callback to fullURL with
// the POST parameters params, as Twilio computes it: base64 of the
// HMAC-SHA1, keyed with the account's auth token, of the URL followed by
// each parameter's name and value, sorted by name.
func TwilioSignature(authToken, fullURL string, params url.Values) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	mac := hmac.New(sha1.New, []byte(authToken))
	mac.Write([]byte(fullURL))
	for _, k := range keys {
		vs := append([]string(nil), params[k]...)
		sort.Strings(vs)
		for _, v := range vs {
			mac.Write([]byte(k))
			mac.Write([]byte(v))
		}
	}
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// VerifyTwilioSignature reports whether header is Twilio's signature of a
// callback to fullURL with params, comparing in constant time. An empty
// token or header verifies nothing.
func VerifyTwilioSignature(authToken, fullURL string, params url.Values, header string) bool {
	if authToken == "" || header == "" {
		return false
	}
	return hmac.Equal([]byte(header), []byte(TwilioSignature(authToken, fullURL, params)))
}
