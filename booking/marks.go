package booking

import (
	"context"
	"strconv"
	"time"
)

// A revocation mark says from when a subject's tokens are good: a token is
// accepted only if it was issued after its subject's mark (sign-out, a
// staff password change), and not at all while the mark is closed (a
// deactivated or erased patient, a disabled staff account). Marks only
// move forward; they are compared at microsecond precision with the
// issue time the signer stamps in every token.

// Subject is whom a token names: its role and its subject claim ("42" for
// patient 42, "staff:ana" for staff user ana's page session).
type Subject struct {
	Role string
	ID   string
}

// Check refuses a subject no token can name, before a store's
// constraints would.
func (sub Subject) Check() error {
	switch sub.Role {
	case RolePatient, RoleDoctor, RoleAdmin, RoleReception:
	default:
		return Errorf(CodeInvalidRequest, "unknown role %q", sub.Role)
	}
	if sub.ID == "" || len(sub.ID) > MaxMarkSubject {
		return Errorf(CodeInvalidRequest, "a subject is 1 to %d characters", MaxMarkSubject)
	}
	return nil
}

// MarkChange is what a move does to a mark's closed flag.
type MarkChange int

const (
	MarkKeep  MarkChange = iota // as it was
	MarkClose                   // every token refused (deactivation, erasure, a disabled staff user)
	MarkOpen                    // tokens issued from now on admitted again
)

// Mark is one subject's mark.
type Mark struct {
	Subject
	// ValidAfter: tokens issued at or before it are refused.
	ValidAfter time.Time
	// Closed refuses every token of the subject, whenever issued.
	Closed bool
}

// The longest subject a mark keeps (a staff page subject is "staff:" and
// a name of at most 64 characters; a token's subject is bounded alike).
const MaxMarkSubject = 200

// PatientSubject is a patient's subject.
func PatientSubject(patientID int64) Subject {
	return Subject{Role: RolePatient, ID: strconv.FormatInt(patientID, 10)}
}

// StaffSubjects are the subjects a staff user's tokens name: the page
// session ("staff:NAME"), an API token minted for the name, as an admin or
// at reception (a user's role may change, so both are moved), and, for a
// doctor's account, the doctor.
func StaffSubjects(name string, doctorID int64) []Subject {
	out := []Subject{{Role: RoleAdmin, ID: "staff:" + name}, {Role: RoleAdmin, ID: name},
		{Role: RoleReception, ID: "staff:" + name}, {Role: RoleReception, ID: name}}
	if doctorID > 0 {
		out = append(out, Subject{Role: RoleDoctor, ID: strconv.FormatInt(doctorID, 10)})
	}
	return out
}

// Admission decides whether a token of a subject, issued at issued, is
// still good against its mark (found false: the subject has none): nil,
// or the refusal — the departed patient's for a closed patient, and
// unauthorized for a token issued at or before the mark or a closed staff
// subject. At equal instants the mark wins, so that a token minted in the
// same microsecond as a sign-out does not survive it.
func Admission(m Mark, found bool, issued time.Time) *Error {
	if !found {
		return nil
	}
	if m.Closed {
		if m.Role == RolePatient {
			return InactiveRefusal(0)
		}
		return Errorf(CodeUnauthorized, "this account is disabled")
	}
	if !issued.After(m.ValidAfter) {
		return Errorf(CodeUnauthorized, "the token was signed out or revoked; sign in again")
	}
	return nil
}

// MarkStore keeps the marks. Every move is the later of the mark and at
// (a mark never goes back), and the changes that end a subject's tokens
// (an erasure, a deactivation, a disabled staff user, a staff password)
// move their marks in their own transactions.
type MarkStore interface {
	// MoveMarks moves the subjects' marks to at (or leaves a later one);
	// a closed mark stays closed (only the changes above open or close
	// one). A subject with an unknown role or an empty or too long id is
	// invalid-request.
	MoveMarks(ctx context.Context, at time.Time, subjects ...Subject) error
	// MarksSince returns the marks moved after since (ValidAfter > since),
	// and, with closed, every closed mark too, in no order.
	MarksSince(ctx context.Context, since time.Time, closed bool) ([]Mark, error)
	// MarksOf returns the marks of the subjects that have one, in no
	// order: what an instance reads after moving them (a probe each).
	MarksOf(ctx context.Context, subjects ...Subject) ([]Mark, error)
}
