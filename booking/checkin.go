package booking

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"
	"time"
)

// CheckInKeyPurpose is the auth.Signer.DeriveKey purpose of the check-in
// codes' key: a code is signed by the server's secret, verifiable without
// a database read, and no other key's use makes one.
const CheckInKeyPurpose = "appointment-check-in"

// checkInAlphabet is Crockford's base 32: no I, L, O or U, so that a code
// read aloud or off a screen is typed as written (CheckInCodes.Normalize
// maps the look-alikes back).
const checkInAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// CheckInCodeLen is a code's length: 8 characters of 5 bits, the first 40
// bits of an HMAC-SHA256. A guess is right once in 2^40; the endpoint is
// rate-limited and the kiosk's staff session is at the desk.
const CheckInCodeLen = 8

// CheckInCodes makes and verifies appointments' check-in codes with one
// key (auth.Signer.DeriveKey(CheckInKeyPurpose)).
type CheckInCodes struct{ key []byte }

// NewCheckInCodes returns the codes of key.
func NewCheckInCodes(key []byte) CheckInCodes { return CheckInCodes{key: key} }

// Valid says whether the codes have a key (a server without one issues
// no codes and refuses every typed code).
func (c CheckInCodes) Valid() bool { return len(c.key) > 0 }

// Code is appointment id's code, CheckInCodeLen characters.
func (c CheckInCodes) Code(id int64) string {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte("check-in\x00" + strconv.FormatInt(id, 10)))
	v := binary.BigEndian.Uint64(m.Sum(nil)[:8]) >> (64 - 5*CheckInCodeLen)
	out := make([]byte, CheckInCodeLen)
	for i := CheckInCodeLen - 1; i >= 0; i-- {
		out[i] = checkInAlphabet[v&31]
		v >>= 5
	}
	return string(out)
}

// Display is a code as people read it: two groups of four ("K7M2-9QXD").
func (c CheckInCodes) Display(id int64) string {
	code := c.Code(id)
	return code[:4] + "-" + code[4:]
}

// NormalizeCheckInCode is a typed code as Code spells it: upper case,
// without spaces and dashes, O read as 0 and I or L as 1; ok is false
// when it cannot be a code (wrong length or a character outside the
// alphabet).
func NormalizeCheckInCode(typed string) (code string, ok bool) {
	if len(typed) > 4*CheckInCodeLen {
		return "", false
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(typed) {
		switch r {
		case ' ', '-':
			continue
		case 'O':
			r = '0'
		case 'I', 'L':
			r = '1'
		}
		if !strings.ContainsRune(checkInAlphabet, r) {
			return "", false
		}
		b.WriteRune(r)
	}
	if b.Len() != CheckInCodeLen {
		return "", false
	}
	return b.String(), true
}

// Verify says whether typed is appointment id's code, in constant time.
func (c CheckInCodes) Verify(id int64, typed string) bool {
	code, ok := NormalizeCheckInCode(typed)
	return ok && c.Valid() && hmac.Equal([]byte(code), []byte(c.Code(id)))
}

// The clinic's default check-in window: from an hour before the start to
// a quarter of an hour after.
const (
	DefaultCheckInBeforeMinutes = 60
	DefaultCheckInAfterMinutes  = 15
	// MaxCheckInMinutes bounds each side of the window: a day.
	MaxCheckInMinutes = 24 * 60
)

// CheckInWindow is when an appointment starting at start can be checked
// in under p: [opens, closes].
func (p Policy) CheckInWindow(start time.Time) (opens, closes time.Time) {
	return start.Add(-time.Duration(p.CheckInBeforeMinutes) * time.Minute),
		start.Add(time.Duration(p.CheckInAfterMinutes) * time.Minute)
}

// Who checks in: the patient with the code, or staff (an admin, or the
// appointment's doctor) without one.
const (
	CheckInByPatient = "patient"
	CheckInByStaff   = "staff"
)

// CheckInRequest is one check-in of an appointment.
type CheckInRequest struct {
	AppointmentID int64
	// PatientID is the patient checking in (0 for staff); DoctorID the
	// doctor checking in a patient of theirs (0 for an admin or a patient).
	PatientID, DoctorID int64
	// Code is the code as typed: required from a patient, checked when
	// staff give one (the kiosk).
	Code  string
	Codes CheckInCodes
}

// By is who checks in, for the metric.
func (r CheckInRequest) By() string {
	if r.PatientID != 0 {
		return CheckInByPatient
	}
	return CheckInByStaff
}

// DecideCheckIn decides check-in r of appointment a under policy p at now,
// inside the transaction that holds a's row: another patient's (or
// another doctor's) appointment is not found, a wrong or missing code is
// bad-check-in-code, an appointment already ARRIVED is answered as it is
// (noop: a repeated scan or click changes nothing, whenever it comes),
// any state but BOOKED is invalid-transition, and outside the window it
// is too early or closed. Otherwise a becomes ARRIVED.
func DecideCheckIn(a Appointment, r CheckInRequest, p Policy, now time.Time) (noop bool, err error) {
	switch {
	case r.PatientID != 0 && a.PatientID != r.PatientID, r.DoctorID != 0 && a.DoctorID != r.DoctorID:
		return false, NotFound("appointment")
	case (r.PatientID != 0 || r.Code != "") && !r.Codes.Verify(a.ID, r.Code):
		return false, Errorf(CodeBadCheckInCode, "this is not the appointment's check-in code")
	case a.Status == StatusArrived:
		return true, nil
	case !CanTransition(a.Status, StatusArrived):
		return false, Errorf(CodeInvalidTransition, "a %s appointment cannot be checked in", a.Status)
	}
	opens, closes := p.CheckInWindow(a.StartAt)
	switch {
	case now.Before(opens):
		e := Errorf(CodeCheckInTooEarly, "check-in opens at %s", opens)
		e.OpensAt = &opens
		return false, e
	case now.After(closes):
		return false, Errorf(CodeCheckInClosed, "check-in closed at %s: please ask at the reception desk", closes)
	}
	return false, nil
}

// Check-in outcomes, the metric's outcome label: a new arrival, a repeat
// answered as it was, and the refusals by code ("other" for the rest).
const (
	CheckInArrived = "arrived"
	CheckInRepeat  = "repeat"
	CheckInOther   = "other"
)

// CheckInOutcomes are every outcome the metric counts.
var CheckInOutcomes = []string{CheckInArrived, CheckInRepeat, string(CodeBadCheckInCode), string(CodeCheckInTooEarly),
	string(CodeCheckInClosed), string(CodeInvalidTransition), string(CodeNotFound), CheckInOther}

// CheckInOutcome names the outcome of a check-in that answered err
// (repeat: the appointment was ARRIVED already).
func CheckInOutcome(repeat bool, err error) string {
	switch c := ErrorCode(err); {
	case err == nil && repeat:
		return CheckInRepeat
	case err == nil:
		return CheckInArrived
	case c == CodeBadCheckInCode, c == CodeCheckInTooEarly, c == CodeCheckInClosed, c == CodeInvalidTransition, c == CodeNotFound:
		return string(c)
	}
	return CheckInOther
}

// AuditCheckIn is the audit action of a check-in (BOOKED to ARRIVED), by
// the patient or the staff member the entry's actor names.
const AuditCheckIn = "check-in"

// AuditAutoNoShow is the audit action of an appointment made NO_SHOW by
// the no-show job (AutoNoShow), by the job's actor.
const AuditAutoNoShow = "no-show-auto"

// AutoNoShow decides whether appointment a becomes NO_SHOW by itself at
// now under p: BOOKED (never checked in) in an ordinary slot, with the
// policy's grace on and passed since the start. Each store asks it of
// every candidate inside the transaction that holds its row; the
// no-show rule (PolicyRefusal) counts the result as any other no-show.
func (p Policy) AutoNoShow(a Appointment, now time.Time) bool {
	return p.NoShowGraceMinutes > 0 && a.Status == StatusBooked && a.RoundID == 0 &&
		CanTransition(a.Status, StatusNoShow) && !now.Before(a.StartAt.Add(time.Duration(p.NoShowGraceMinutes)*time.Minute))
}
