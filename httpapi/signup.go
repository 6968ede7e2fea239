package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/edge"
	"github.com/slotd/slotd/service"
)

// signupBody is the body of POST /api/signup (decodeJSON refuses unknown
// fields; the Service checks and bounds every member).
type signupBody struct {
	Phone     string `json:"phone"`
	Email     string `json:"email"`
	Code      string `json:"code"`
	Name      string `json:"name"`
	BirthDate string `json:"birthDate"`
	Sex       string `json:"sex"`
	Language  string `json:"language"`
	// NationalID is asked where the clinic registers real names.
	NationalID string `json:"nationalId"`
}

// maxSignupField bounds every member as sent, before the Service's own
// bounds: nothing longer is a phone, an address, a code or a name.
const maxSignupField = 1024

// signupCode sends a sign-up code to the phone or e-mail address: 202
// whether or not it is a patient's, so that the endpoint tells nobody who
// is (the code is sent either way: a registered address's signs in).
func (s *server) signupCode(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if s.signin == nil {
		return errorf(booking.CodeNotFound, "sign-up with a code is not served here")
	}
	var in struct {
		Phone string `json:"phone"`
		Email string `json:"email"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if len(in.Phone) > maxSignupField || len(in.Email) > maxSignupField {
		return errorf(booking.CodeInvalidRequest, "phone or email is too long")
	}
	sent, err := s.signin.RequestSignupCode(r.Context(), service.SignupCodeRequest{
		Phone: in.Phone, Email: in.Email, ClientAddr: edge.ClientAddr(r), Language: acceptedLanguage(r)})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusAccepted, map[string]any{"expiresAt": sent.ExpiresAt.UTC().Format(time.RFC3339)})
	return nil
}

// signup checks the code and creates the patient (201), or signs in the
// patient who already has the address (200, unchanged), answering a
// patient's bearer token as /api/signin/verify does.
func (s *server) signup(w http.ResponseWriter, r *http.Request, _ auth.Claims) error {
	if s.signin == nil {
		return errorf(booking.CodeNotFound, "sign-up with a code is not served here")
	}
	var in signupBody
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	for _, f := range []string{in.Phone, in.Email, in.Code, in.Name, in.BirthDate, in.Sex, in.Language, in.NationalID} {
		if len(f) > maxSignupField {
			return errorf(booking.CodeInvalidRequest, "a member is too long")
		}
	}
	lang := in.Language
	if lang == "" {
		lang = acceptedLanguage(r)
	}
	up, err := s.signin.Signup(r.Context(), service.SignupRequest{
		Phone: in.Phone, Email: in.Email, Code: in.Code, Language: lang, ClientAddr: edge.ClientAddr(r),
		Profile: booking.SignupProfile{Name: in.Name, BirthDate: in.BirthDate, Sex: in.Sex, NationalID: in.NationalID}})
	if err != nil {
		return err
	}
	token, err := s.signer.Mint(auth.RolePatient, strconv.FormatInt(up.Patient.ID, 10), s.signinTTL)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if up.Created {
		status = http.StatusCreated
		w.Header().Set("Location", "/api/me/data")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, map[string]any{
		"token": token, "expiresAt": s.now().Add(s.signinTTL).UTC().Format(time.RFC3339), "patientId": up.Patient.ID,
		"created": up.Created})
	return nil
}
