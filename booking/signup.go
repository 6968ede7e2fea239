package booking

import (
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A patient's sign-up (service.Signin.Signup): the rules on what a new
// patient tells about themselves, before anything is stored.

// CodeSignupDisabled refuses a sign-up where the clinic turned sign-up off
// (--signup=false): the clinic registers its patients itself.
const CodeSignupDisabled Code = "signup-disabled"

// Sexes are the values of Patient.Sex a patient may give (FHIR's
// administrative gender); "" when not given.
var Sexes = []string{"female", "male", "other", "unknown"}

// MaxPatientName bounds a patient's name (characters), as the staff's
// forms bound every name.
const MaxPatientName = 200

// EarliestBirthDate is the earliest birth date taken: an earlier one is a
// typing error.
const EarliestBirthDate = "1900-01-01"

// SignupProfile is what a new patient gives beside the proven address.
type SignupProfile struct {
	Name string
	// BirthDate is YYYY-MM-DD, "" when not given.
	BirthDate string
	// Sex is one of Sexes, "" when not given.
	Sex string
	// NationalID is the national ID number (nationalid.go), "" when not
	// given; the clinic's policy says whether it is required.
	NationalID string
}

// CheckSignupProfile returns p with its name trimmed, or the refusal
// (CodeInvalidRequest, Pointer naming the member at fault) of a name that
// is empty, too long or not printable, a birth date that is not a real day
// between EarliestBirthDate and today (today's date in UTC and in any
// zone ahead of it: the calendar day of today, loosely), or a sex not in
// Sexes. The messages never echo the values: they are personal data.
func CheckSignupProfile(p SignupProfile, today time.Time) (SignupProfile, error) {
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" || !utf8.ValidString(p.Name) || utf8.RuneCountInString(p.Name) > MaxPatientName ||
		strings.ContainsFunc(p.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return p, &Error{Code: CodeInvalidRequest, Pointer: "/name",
			Message: "name must be 1 to 200 printable characters", Format: "name must be 1 to 200 printable characters"}
	}
	if p.BirthDate != "" {
		d, err := time.Parse(time.DateOnly, p.BirthDate)
		// A day ahead of UTC's today is still today somewhere.
		latest := today.UTC().Add(14 * time.Hour).Format(time.DateOnly)
		if err != nil || d.Format(time.DateOnly) != p.BirthDate || p.BirthDate < EarliestBirthDate || p.BirthDate > latest {
			return p, &Error{Code: CodeInvalidRequest, Pointer: "/birthDate",
				Message: "birthDate must be a past date, YYYY-MM-DD", Format: "birthDate must be a past date, YYYY-MM-DD"}
		}
	}
	if p.Sex != "" && !slices.Contains(Sexes, p.Sex) {
		return p, &Error{Code: CodeInvalidRequest, Pointer: "/sex",
			Message: "sex must be female, male, other or unknown", Format: "sex must be female, male, other or unknown"}
	}
	return p, nil
}

// AuditSignup is the entry of a patient's sign-up, made by the new patient
// itself: its id only, never what it gave.
func AuditSignup(now time.Time, patientID int64) AuditEntry {
	return auditBy(Actor{Role: RolePatient, ID: strconv.FormatInt(patientID, 10)}, now, EntityPatient, patientID, "signup",
		nil, map[string]any{"id": patientID})
}

// MaxEmail bounds an e-mail address (RFC 5321's path limit).
const MaxEmail = 254

// EmailOK is a light check of an e-mail address: one plain addr-spec with
// a domain.
func EmailOK(e string) bool {
	if len(e) > MaxEmail || strings.ContainsAny(e, " <>\"\t\r\n") {
		return false
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e {
		return false
	}
	at := strings.LastIndexByte(e, '@')
	return at > 0 && at < len(e)-1
}
