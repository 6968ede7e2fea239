package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/i18n"
	"github.com/slotd/slotd/service"
)

// DefaultSigninTokenTTL is the life of the bearer token POST
// /api/signin/verify answers with: the web session's (web.DefaultSessionTTL).
const DefaultSigninTokenTTL = 12 * time.Hour

// signinBody is the body of POST /api/signin/verify (decodeJSON refuses
// unknown fields; the lengths are bounded by the handler).
type signinBody struct {
	Phone string `json:"phone"`
	Code  string `json:"code"`
}

// maxSigninField bounds a phone or code as typed (the Signin's bound).
const maxSigninField = service.MaxSigninInput

// signinCode asks for a sign-in code sent to the phone: 202 whether or not
// the phone is a patient's, so that the endpoint tells nobody who is.
func (s *server) signinCode(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if s.signin == nil {
		return errorf(booking.CodeNotFound, "sign-in with a code is not served here")
	}
	var in struct {
		Phone string `json:"phone"`
		// Channel is where the code should go: sms or email (optional).
		Channel string `json:"channel"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Phone == "" || len(in.Phone) > maxSigninField {
		return errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
	}
	if in.Channel != "" && in.Channel != "sms" && in.Channel != "email" {
		return inBody(errorf(booking.CodeInvalidRequest, "channel must be sms or email"), "/channel")
	}
	sent, err := s.signin.RequestSigninCode(r.Context(), service.SigninCodeRequest{
		Phone: in.Phone, ClientAddr: edge.ClientAddr(r), Language: acceptedLanguage(r), Channel: in.Channel})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusAccepted, map[string]any{"expiresAt": sent.ExpiresAt.UTC().Format(time.RFC3339)})
	return nil
}

// signinVerify checks a sign-in code and answers a patient's bearer token.
func (s *server) signinVerify(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if s.signin == nil {
		return errorf(booking.CodeNotFound, "sign-in with a code is not served here")
	}
	var in signinBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Phone == "" || len(in.Phone) > maxSigninField || in.Code == "" || len(in.Code) > maxSigninField {
		return errorf(booking.CodeInvalidRequest, "phone and code are required")
	}
	p, err := s.signin.VerifySigninCode(r.Context(), service.SigninVerify{
		Phone: in.Phone, Code: in.Code, ClientAddr: edge.ClientAddr(r), Language: acceptedLanguage(r)})
	if err != nil {
		return err
	}
	token, err := s.signer.Mint(auth.RolePatient, strconv.FormatInt(p.ID, 10), s.signinTTL)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{
		"token": token, "expiresAt": s.now().Add(s.signinTTL).UTC().Format(time.RFC3339), "patientId": p.ID})
	return nil
}

// acceptedLanguage is the language of i18n.Languages the request's
// Accept-Language asks for, "" when it asks for none of them.
func acceptedLanguage(r *http.Request) string {
	h := r.Header.Get("Accept-Language")
	if h == "" {
		return ""
	}
	// The fallback shows through only when nothing matched.
	if a, b := i18n.Pick("", h, "fr"), i18n.Pick("", h, "zh"); a == b {
		return a
	}
	return ""
}
