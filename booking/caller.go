package booking

// Caller roles: who a token or a page session says is asking. They are
// auth's roles, named here so that the caller rule needs no adapter.
const (
	RolePatient   = "patient"
	RoleDoctor    = "doctor"
	RoleAdmin     = "admin"
	RoleReception = "reception"
)

// Desk is the one rule of who does the front desk's work: find people (by
// phone, e-mail, or name and birth date), add a person on the spot, and
// book, cancel, reschedule and check in for anyone. Reception and admins do;
// running the clinic (its settings, staff accounts, exports, erasure) stays
// the admin's alone.
func Desk(role string) bool { return role == RoleAdmin || role == RoleReception }

// BrowsesPatients reports whether role may list every person or search
// names by their start (which opens the sealed names one by one): an
// admin's. The front desk finds a person by a keyed hash only: phone,
// e-mail, or whole name with birth date.
func BrowsesPatients(role string) bool { return role == RoleAdmin }

// Acting is whom a change is made for and how, as ActFor decides it.
type Acting struct {
	// PatientID is the patient the change is for.
	PatientID int64
	// Staff says staff act for the patient: the no-show block does not
	// apply (the caps do).
	Staff bool
	// Admission is the waiting room's admission token presented with a
	// booking (opening.go); the Service verifies it against PatientID.
	Admission string
	// Invitation is a campaign's invitation code presented with a booking
	// (eligibility.go), "" for none.
	Invitation string
}

// ActFor is the one rule of who may act for which patient, for every front
// end (the API, the pages, FHIR): a patient for themselves (named is 0 or
// their own id) or for a person their account manages (managed says
// named is one: people.go), any other id being not found, as if it did not
// exist; the front desk (Desk: reception, an admin) for the patient it
// names; nobody else. caller is the
// actor of the request (Actor.ID is a patient's id in decimal).
func ActFor(caller Actor, self, named int64, managed bool) (Acting, *Error) {
	switch caller.Role {
	case RolePatient:
		if named == 0 || named == self {
			return Acting{PatientID: self}, nil
		}
		if !managed {
			return Acting{}, NotFound("patient")
		}
		return Acting{PatientID: named}, nil
	}
	if Desk(caller.Role) {
		if named == 0 {
			return Acting{}, Errorf(CodeInvalidRequest, "the front desk must name the patient")
		}
		return Acting{PatientID: named, Staff: true}, nil
	}
	return Acting{}, Errorf(CodeForbidden, "only patients, reception and admins can act for a patient")
}

// DepartedRefusal refuses a patient who has left — deactivated, or erased
// (which deactivates) — on every path that acts for them.
func DepartedRefusal(p Patient) *Error {
	if !p.Active || p.ErasedAt != nil {
		return InactiveRefusal(0)
	}
	return nil
}

// InactiveRefusal is the answer to a change for a deactivated or erased
// patient; slotID names the slot of a booking (0 for none).
func InactiveRefusal(slotID int64) *Error {
	return &Error{Code: CodeBookingBlocked, SlotID: slotID, Message: "this patient's record is deactivated"}
}
