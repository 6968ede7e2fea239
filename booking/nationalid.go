package booking

import "strings"

// Real-name registration: a clinic whose policy sets RequireNationalID
// asks for a national ID number of every patient who signs up and every
// person an account adds. The number is personal data, sealed like the
// phone and found (and kept unique) only through its keyed hash; a clinic
// without the rule takes none.

// The refusals of real-name registration.
const (
	// CodeNationalIDRequired: the clinic registers real names and the
	// request gave no national ID number.
	CodeNationalIDRequired Code = "national-id-required"
	// CodeNationalIDTaken: another patient of the clinic has this national
	// ID number.
	CodeNationalIDTaken Code = "national-id-taken"
)

// National ID numbers are 4 to MaxNationalID letters and digits once
// spaces, hyphens and dots are taken out (the Chinese resident ID's 18,
// with its final X; a passport's 9; a French NIR's 15).
const (
	MinNationalID = 4
	MaxNationalID = 32
)

// NormalizeNationalID is id as stored and compared: upper case, without
// the spaces, hyphens and dots people type; ok is false when what is left
// is not MinNationalID to MaxNationalID ASCII letters and digits.
func NormalizeNationalID(id string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToUpper(id) {
		switch {
		case r == ' ' || r == '-' || r == '.':
		case r >= '0' && r <= '9' || r >= 'A' && r <= 'Z':
			if b.Len() == MaxNationalID {
				return "", false
			}
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	return b.String(), b.Len() >= MinNationalID
}

// CheckNationalID returns id normalized, "" when none was given and the
// clinic does not require one; the refusals name /nationalId and never
// echo the value (personal data).
func CheckNationalID(id string, required bool) (string, error) {
	if strings.TrimSpace(id) == "" {
		if required {
			return "", &Error{Code: CodeNationalIDRequired, Pointer: "/nationalId",
				Message: "this clinic registers patients by their national ID number: give it", Format: "this clinic registers patients by their national ID number: give it"}
		}
		return "", nil
	}
	n, ok := NormalizeNationalID(id)
	if !ok {
		return "", &Error{Code: CodeInvalidRequest, Pointer: "/nationalId",
			Message: "nationalId must be 4 to 32 letters and digits", Format: "nationalId must be 4 to 32 letters and digits"}
	}
	return n, nil
}
