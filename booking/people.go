package booking

import (
	"context"
	"slices"
	"time"
)

// Family members: an account (the patient who signs in) manages up to the
// policy's MaxPeople people, itself included — a child, a parent. Each is a
// patient of its own (its own appointments, caps, no-show record,
// waitlist, export and erasure) whose ManagerID is the account's id.

// Relations are the values of Patient.Relation: the account's own row is
// RelationSelf, a person it manages is one of the others.
const (
	RelationSelf   = "self"
	RelationChild  = "child"
	RelationParent = "parent"
	RelationSpouse = "spouse"
	RelationOther  = "other"
)

// PersonRelations are the relations a managed person may have.
var PersonRelations = []string{RelationChild, RelationParent, RelationSpouse, RelationOther}

// DefaultMaxPeople is the clinic's default cap of people per account, the
// account included; MaxPeopleLimit bounds what the policy may set.
const (
	DefaultMaxPeople = 5
	MaxPeopleLimit   = 20
)

// PersonInput is what an account gives of a person it adds or edits.
type PersonInput struct {
	Name      string
	BirthDate string // YYYY-MM-DD
	Sex       string // one of Sexes, "" when not given
	Relation  string // one of PersonRelations
	// NationalID is the person's national ID number (nationalid.go), ""
	// for none; required where the clinic registers real names.
	NationalID string
	// Consent says the account confirms it may give this person's data
	// (a parent for a child, or the person's own agreement); required to add.
	Consent bool
}

// CheckPerson returns in with its name trimmed, or the refusal (a field
// error) of a name, birth date or sex as sign-up refuses them, a birth
// date missing, a relation not in PersonRelations, or an addition without
// consent (adding says add).
func CheckPerson(in PersonInput, today time.Time, add bool) (PersonInput, error) {
	if in.BirthDate == "" {
		return in, &Error{Code: CodeInvalidRequest, Pointer: "/birthDate",
			Message: "birthDate must be a past date, YYYY-MM-DD", Format: "birthDate must be a past date, YYYY-MM-DD"}
	}
	p, err := CheckSignupProfile(SignupProfile{Name: in.Name, BirthDate: in.BirthDate, Sex: in.Sex}, today)
	if err != nil {
		return in, err
	}
	in.Name = p.Name
	if !slices.Contains(PersonRelations, in.Relation) {
		return in, &Error{Code: CodeInvalidRequest, Pointer: "/relation",
			Message: "relation must be child, parent, spouse or other", Format: "relation must be child, parent, spouse or other"}
	}
	if add && !in.Consent {
		return in, &Error{Code: CodeInvalidRequest, Pointer: "/consent",
			Message: "consent must be true: confirm you may give this person's data", Format: "consent must be true: confirm you may give this person's data"}
	}
	return in, nil
}

// AddPersonRefusal refuses a new person when the account already has
// people (itself included) of max; a store asks it in the transaction that
// counts them, so that two additions at once cannot pass the cap.
func AddPersonRefusal(people, max int) *Error {
	if people >= max {
		return Errorf(CodeConflict, "this account already manages the most people allowed (%d)", max)
	}
	return nil
}

// Manages reports whether account may act for p: p is the account itself
// or a person it manages who has not been removed (erased).
func Manages(account int64, p Patient) bool {
	return p.ID == account || (p.ManagerID == account && p.ErasedAt == nil)
}

// PersonOf is the person's row as an account adds it.
func PersonOf(account int64, in PersonInput, now time.Time) Patient {
	t := now.UTC()
	return Patient{Name: in.Name, BirthDate: in.BirthDate, Sex: in.Sex, Relation: in.Relation, NationalID: in.NationalID,
		ManagerID: account, ConsentAt: &t, CreatedAt: now, Active: true}
}

// The actions of an account on the people it manages, as audited
// (AuditPerson) and counted (metrics).
const (
	PersonAdd    = "add"
	PersonUpdate = "update"
	PersonRemove = "remove"
)

// PersonActions lists them.
var PersonActions = []string{PersonAdd, PersonUpdate, PersonRemove}

// AuditPerson is the entry of an account's change to person p, a person it
// manages (action add, update or remove): ids and the relation only, never
// the person's data.
func AuditPerson(ctx context.Context, now time.Time, action string, p Patient) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityPatient, ID: p.ID, Action: "person-" + action,
		After: map[string]any{"id": p.ID, "managerId": p.ManagerID, "relation": p.Relation}})
}

// PeopleStore keeps the people an account manages; editing one is
// ClinicStore.UpdatePatient, removing one is PatientStore.ErasePatient.
type PeopleStore interface {
	// People lists the account and the people it manages who are not
	// erased, by id (the account first: it is older than its people).
	People(ctx context.Context, account int64, p Page) ([]Patient, error)
	// AddPerson adds p (PersonOf) as a person account manages, under a
	// lock of the account's row: it counts the account's people and asks
	// AddPersonRefusal with max first, and refuses an account that is not
	// one (a managed person, deactivated or erased: not found).
	AddPerson(ctx context.Context, p Patient, max int) (Patient, error)
}
