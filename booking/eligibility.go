package booking

import (
	"context"
	"crypto/rand"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Vaccination campaigns (docs/campaigns.md): a schedule's eligibility rule
// decides who may book its slots (an age range on the slot's day, cohort
// tags, a single-use invitation code) and holds the last places of each of
// its slots for a cohort, or for invitations, until a time. The decision
// is part of DecideBooking, from what the store reads with the batch: the
// rule with the slot's policy, the persons' birth dates and tags and the
// invitations presented in one query each, only when the slot has a rule.

// The refusals of an eligibility rule.
const (
	// CodeNotEligible: the person is outside the schedule's age range or
	// has none of its cohort tags.
	CodeNotEligible Code = "not-eligible"
	// CodeInvitationRequired: the schedule needs an invitation code and
	// none was given, or the code is unknown, used, or for another schedule.
	CodeInvitationRequired Code = "invitation-required"
	// CodePlacesReserved: the places left are held for a cohort or for
	// invitations until a time (OpensAt); they open to everyone then.
	CodePlacesReserved Code = "places-reserved"
)

// Bounds of the campaign inputs.
const (
	MaxCohortTag      = 50
	MaxRuleCohorts    = 20
	MaxInvitations    = 5000 // codes of one generated batch
	MaxCohortRows     = 10000
	InvitationCodeLen = 12
)

// EligibilityRule is a schedule's rule; the zero value of a field asks
// nothing.
type EligibilityRule struct {
	ScheduleID int64 `json:"scheduleId"`
	// MinAge and MaxAge bound the person's age in whole years on the
	// slot's day (nil: no bound).
	MinAge *int `json:"minAge"`
	MaxAge *int `json:"maxAge"`
	// Cohorts: the person must have one of these tags (none: anyone).
	Cohorts []string `json:"cohorts"`
	// InvitationRequired: every booking presents an unused invitation
	// code of this schedule, which it uses up.
	InvitationRequired bool `json:"invitationRequired"`
	// ReservePlaces of each slot, its last ones, are held until
	// ReserveUntil for the members of ReserveCohort, or, when it is "",
	// for the holders of an invitation; others take only the rest.
	ReservePlaces int        `json:"reservePlaces"`
	ReserveCohort string     `json:"reserveCohort"`
	ReserveUntil  *time.Time `json:"reserveUntil"`
	UpdatedAt     time.Time  `json:"updatedAt"`
}

// Check refuses a rule out of bounds.
func (r EligibilityRule) Check() error {
	for _, a := range []struct {
		v   *int
		ptr string
	}{{r.MinAge, "/minAge"}, {r.MaxAge, "/maxAge"}} {
		if a.v != nil && (*a.v < 0 || *a.v > 150) {
			return &Error{Code: CodeInvalidRequest, Pointer: a.ptr, Message: "an age must be 0 to 150", Format: "an age must be 0 to 150"}
		}
	}
	if r.MinAge != nil && r.MaxAge != nil && *r.MinAge > *r.MaxAge {
		return &Error{Code: CodeInvalidRequest, Pointer: "/maxAge", Message: "maxAge must not be below minAge", Format: "maxAge must not be below minAge"}
	}
	if len(r.Cohorts) > MaxRuleCohorts {
		return &Error{Code: CodeInvalidRequest, Pointer: "/cohorts", Message: "at most 20 cohorts", Format: "at most 20 cohorts"}
	}
	for _, t := range append(slices.Clone(r.Cohorts), r.ReserveCohort) {
		if t != "" && CohortTag(t) != t {
			return &Error{Code: CodeInvalidRequest, Pointer: "/cohorts", Message: "a cohort tag is 1 to 50 characters, without spaces at its ends",
				Format: "a cohort tag is 1 to 50 characters, without spaces at its ends"}
		}
	}
	if r.ReservePlaces < 0 || r.ReservePlaces > 10000 {
		return &Error{Code: CodeInvalidRequest, Pointer: "/reservePlaces", Message: "reservePlaces must be 0 to 10000", Format: "reservePlaces must be 0 to 10000"}
	}
	if r.ReservePlaces > 0 && r.ReserveUntil == nil {
		return &Error{Code: CodeInvalidRequest, Pointer: "/reserveUntil", Message: "reserved places need reserveUntil", Format: "reserved places need reserveUntil"}
	}
	return nil
}

// CohortTag is tag as stored, or "" when it is not a valid tag (empty,
// too long, or with spaces at its ends).
func CohortTag(tag string) string {
	if tag == "" || len(tag) > MaxCohortTag || strings.TrimSpace(tag) != tag {
		return ""
	}
	return tag
}

// Person is what a rule needs of a patient.
type Person struct {
	BirthDate string // YYYY-MM-DD, "" when not known
	Cohorts   []string
}

// Invitation is a presented code as read: the schedule it is for and
// whether an appointment uses it.
type Invitation struct {
	ScheduleID int64
	Used       bool
}

// AgeOn is the age in whole years on day of a person born on birth
// (YYYY-MM-DD), and false when birth is not a date.
func AgeOn(birth string, day time.Time) (int, bool) {
	b, err := time.Parse(time.DateOnly, birth)
	if err != nil {
		return 0, false
	}
	age := day.Year() - b.Year()
	if day.Month() < b.Month() || (day.Month() == b.Month() && day.Day() < b.Day()) {
		age--
	}
	return age, true
}

// Eligible refuses p under rule for a slot starting at day (nil: p may
// book), invitation aside: CodeNotEligible when p's age is unknown or out
// of range, or p has none of the rule's cohorts.
func Eligible(rule *EligibilityRule, p Person, day time.Time) *Error {
	if rule == nil {
		return nil
	}
	if rule.MinAge != nil || rule.MaxAge != nil {
		age, ok := AgeOn(p.BirthDate, day)
		if !ok || (rule.MinAge != nil && age < *rule.MinAge) || (rule.MaxAge != nil && age > *rule.MaxAge) {
			return Errorf(CodeNotEligible, "this campaign is for another age group")
		}
	}
	if len(rule.Cohorts) > 0 && !slices.ContainsFunc(rule.Cohorts, func(t string) bool { return slices.Contains(p.Cohorts, t) }) {
		return Errorf(CodeNotEligible, "this campaign is for another group of people")
	}
	return nil
}

// invitationOK says whether code, as read into invs, is an unused
// invitation of the rule's schedule that this batch has not given yet.
func invitationOK(rule *EligibilityRule, code string, invs map[string]Invitation, given map[string]bool) bool {
	inv, ok := invs[code]
	return code != "" && ok && !inv.Used && inv.ScheduleID == rule.ScheduleID && !given[code]
}

// RuleAsk is one person's request under a slot's rule, what DecideRule
// decides from: the booking asks it for each request of a batch, the
// slot listings for the person named, who presents no invitation.
type RuleAsk struct {
	Rule   *EligibilityRule
	Person Person
	// Invited: the request presents an unused invitation of the rule's
	// schedule (that its batch has not given yet).
	Invited bool
	// LaterDose: a later dose of a series, whose first dose passed the
	// rule's invitation.
	LaterDose bool
	Start     time.Time // the slot's start: ages are on its day
	Now       time.Time
}

// DecideRule is the one decision of a slot's rule for a person: the
// refusal (CodeNotEligible, CodeInvitationRequired; nil when the person
// may book) and how many of the slot's places the reserve holds against
// them at Now (0 when none: after ReserveUntil, for the reserve's cohort,
// or, for an invitation reserve, for an invited request).
func DecideRule(a RuleAsk) (refusal *Error, held int) {
	rule := a.Rule
	if rule == nil {
		return nil, 0
	}
	if e := Eligible(rule, a.Person, a.Start); e != nil {
		return e, 0
	}
	if rule.InvitationRequired && !a.Invited && !a.LaterDose {
		return Errorf(CodeInvitationRequired, "this slot needs an invitation code: the code given is missing, unknown or already used"), 0
	}
	if rule.ReservePlaces == 0 || rule.ReserveUntil == nil || !a.Now.Before(*rule.ReserveUntil) {
		return nil, 0
	}
	if rule.ReserveCohort == "" && (a.Invited || a.LaterDose) || rule.ReserveCohort != "" && slices.Contains(a.Person.Cohorts, rule.ReserveCohort) {
		return nil, 0
	}
	return nil, rule.ReservePlaces
}

// PersonalPlaces is what one person can take of a slot: Places, and when
// the rule makes them 0 while the slot has free places, Reason
// (CodeNotEligible, CodeInvitationRequired, CodePlacesReserved, with
// OpensAt the reserve's end).
type PersonalPlaces struct {
	Places  int        `json:"places"`
	Reason  Code       `json:"reason,omitempty"`
	OpensAt *time.Time `json:"opensAt,omitempty"`
}

// PlacesFor is what a's person can take of free places, by DecideRule: the
// answer a booking without an invitation would get for its first place.
func PlacesFor(a RuleAsk, free int) PersonalPlaces {
	free = max(free, 0)
	refusal, held := DecideRule(a)
	switch {
	case free == 0:
		return PersonalPlaces{}
	case refusal != nil:
		return PersonalPlaces{Reason: refusal.Code}
	case held >= free:
		return PersonalPlaces{Reason: CodePlacesReserved, OpensAt: a.Rule.ReserveUntil}
	}
	return PersonalPlaces{Places: free - held}
}

// ReservedError is the refusal of a request the reserve holds out.
func ReservedError(rule *EligibilityRule, slotID int64) *Error {
	e := Errorf(CodePlacesReserved, "the places left in this slot are reserved until %v", *rule.ReserveUntil)
	e.SlotID, e.OpensAt = slotID, rule.ReserveUntil
	return e
}

// usesInvitation says whether the rule makes a request use its
// invitation: when required, or when it opens the reserve.
func (r *EligibilityRule) usesInvitation() bool {
	return r != nil && (r.InvitationRequired || r.ReservePlaces > 0 && r.ReserveCohort == "")
}

// NeedsPersons says whether deciding under rule needs the persons read.
func (r *EligibilityRule) NeedsPersons() bool {
	return r != nil && (r.MinAge != nil || r.MaxAge != nil || len(r.Cohorts) > 0 || r.ReserveCohort != "")
}

// NeedsInvitations says whether deciding reqs under rule needs their
// invitations read.
func (r *EligibilityRule) NeedsInvitations(reqs []BookRequest) bool {
	return r.usesInvitation() && slices.ContainsFunc(reqs, func(q BookRequest) bool { return q.Invitation != "" })
}

// InvitationUse is an invitation a new appointment uses: the store marks
// it used by the appointment in the same transaction.
type InvitationUse struct {
	Code          string
	AppointmentID int64
}

// InvitationsUsed are the invitations the winners use, once Finish has
// their appointments' ids.
func (d *BookDecision) InvitationsUsed(ids []int64) []InvitationUse {
	var out []InvitationUse
	for k, i := range d.Winners {
		if c := d.invited[i]; c != "" {
			out = append(out, InvitationUse{Code: c, AppointmentID: ids[k]})
		}
	}
	return out
}

// EligibilityStore keeps the campaigns' rules, cohorts and invitations.
type EligibilityStore interface {
	// SetEligibility sets (or, with remove, deletes) schedule's rule; audited.
	// A schedule that does not exist is CodeNotFound.
	SetEligibility(ctx context.Context, rule EligibilityRule, remove bool, now time.Time) (EligibilityRule, error)
	// Eligibility reads schedule's rule, nil for none.
	Eligibility(ctx context.Context, scheduleID int64) (*EligibilityRule, error)
	// ImportCohorts adds the (patient, tag) rows, those already there
	// kept, in one transaction; a patient that does not exist refuses
	// the whole import (CodeNotFound naming its row). Audited; returns
	// how many rows were new.
	ImportCohorts(ctx context.Context, rows []CohortRow, now time.Time) (int, error)
	// CreateInvitations stores the keyed hashes of codes for schedule, in
	// one transaction; audited. A schedule that does not exist is
	// CodeNotFound.
	CreateInvitations(ctx context.Context, scheduleID int64, codes []string, now time.Time) error
	// ListingRules reads what PlacesFor needs to answer one person's
	// listing of slots: the rules of the slots' schedules with the slots'
	// start and free places, by slot (slots
	// of a round, whose quota governs them, and slots without a rule are
	// left out), and, only when one of them asks (NeedsPersons), the
	// person's birth date and cohorts. At most MaxListingSlots slots.
	ListingRules(ctx context.Context, patientID int64, slotIDs []int64) (ListingReads, error)
}

// MaxListingSlots bounds the slots of one personal listing read.
const MaxListingSlots = 1000

// ListingReads is what ListingRules reads.
type ListingReads struct {
	Slots  map[int64]ListedRule // by slot id, the slots with a rule
	Person Person
}

// ListedRule is a listed slot's rule, start and free places as read.
type ListedRule struct {
	Rule    *EligibilityRule
	StartAt time.Time
	Free    int
}

// PlacesOf is what the person of rd can take of slot at now: nil for a
// slot without a rule (the anonymous answer holds for everyone).
func (rd ListingReads) PlacesOf(slotID int64, now time.Time) *PersonalPlaces {
	l, ok := rd.Slots[slotID]
	if !ok {
		return nil
	}
	p := PlacesFor(RuleAsk{Rule: l.Rule, Person: rd.Person, Start: l.StartAt, Now: now}, l.Free)
	return &p
}

// CohortRow is one row of a cohort import: a patient and a tag.
type CohortRow struct {
	PatientID int64
	Tag       string
}

// AuditEligibility records a rule set (before nil: created) or removed
// (after nil); one of the two is the schedule's rule.
func AuditEligibility(ctx context.Context, now time.Time, before, after *EligibilityRule) AuditEntry {
	return auditRule(ctx, now, ruleChange[EligibilityRule]{EntityEligibility, before, after, func(r *EligibilityRule) int64 { return r.ScheduleID }})
}

// ruleChange is a rule of entity set (before nil: created), changed or
// removed (after nil); id is its owner's id.
type ruleChange[R any] struct {
	entity        string
	before, after *R
	id            func(*R) int64
}

// auditRule is the entry of rule change c.
func auditRule[R any](ctx context.Context, now time.Time, c ruleChange[R]) AuditEntry {
	switch {
	case c.before == nil:
		return Audit(ctx, now, AuditChange{Entity: c.entity, ID: c.id(c.after), Action: "create", After: c.after})
	case c.after == nil:
		return Audit(ctx, now, AuditChange{Entity: c.entity, ID: c.id(c.before), Action: "delete", Before: c.before})
	}
	return Audit(ctx, now, AuditChange{Entity: c.entity, ID: c.id(c.after), Action: "update", Before: c.before, After: c.after})
}

// AuditCohorts records an import: how many rows were given and new, and
// the tags (never who has them: the patients' ids stay out of the log).
func AuditCohorts(ctx context.Context, now time.Time, rows []CohortRow, added int) AuditEntry {
	tags := map[string]bool{}
	for _, r := range rows {
		tags[r.Tag] = true
	}
	return Audit(ctx, now, AuditChange{Entity: EntityCohorts, Action: "import",
		After: map[string]any{"rows": len(rows), "added": added, "tags": slices.Sorted(maps.Keys(tags))}})
}

// AuditInvitations records a batch of n codes generated for a schedule
// (how many, never the codes).
func AuditInvitations(ctx context.Context, now time.Time, scheduleID int64, n int) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityInvitations, ID: scheduleID, Action: "create", After: map[string]int{"count": n}})
}

// invitationAlphabet leaves out the letters and digits a reader confuses
// (0/O, 1/I/L), for codes typed from a letter.
const invitationAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// NewInvitationCodes makes n random codes of InvitationCodeLen characters
// from crypto/rand (31^12: about 59 bits each), unbiased: a byte of 248 or
// more is drawn again.
func NewInvitationCodes(n int) []string {
	codes := make([]string, n)
	var b [1]byte
	for k := range codes {
		code := make([]byte, 0, InvitationCodeLen)
		for len(code) < InvitationCodeLen {
			rand.Read(b[:])
			if int(b[0]) < 248 {
				code = append(code, invitationAlphabet[int(b[0])%len(invitationAlphabet)])
			}
		}
		codes[k] = string(code)
	}
	return codes
}

// ValidInvitation reports whether code may be presented at all, whatever
// front end it came through: 1 to 32 ASCII letters, digits, spaces and
// dashes (a code is InvitationCodeLen of them, perhaps in groups).
func ValidInvitation(code string) bool {
	if len(code) < 1 || len(code) > 32 {
		return false
	}
	for _, r := range code {
		if r >= unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '-') {
			return false
		}
	}
	return true
}

// NormalizeInvitation is the one form of a code that its hash is made of:
// upper case, spaces and dashes dropped (a letter may print it in groups).
func NormalizeInvitation(code string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return unicode.ToUpper(r)
	}, code)
}

// InvitationCount is how many invitations the winners use.
func (d *BookDecision) InvitationCount() int {
	n := 0
	for _, i := range d.Winners {
		if d.invited[i] != "" {
			n++
		}
	}
	return n
}

// ServiceRule is a service's eligibility rule (docs/campaigns.md): every
// visit of the service is for the people of its age range and cohorts,
// whatever schedule its slots are in. It asks only who the person is:
// invitation codes stay per schedule (a code is for a schedule's rule) and
// reserved places per slot (a schedule's rule), so that one code and one
// reserve never have two owners. A visit passes its slot's schedule rule
// and its service's rule, both decided by Eligible.
type ServiceRule struct {
	ServiceID int64     `json:"serviceId"`
	MinAge    *int      `json:"minAge"`
	MaxAge    *int      `json:"maxAge"`
	Cohorts   []string  `json:"cohorts"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Rule is r as the rule Eligible decides by (nil for nil).
func (r *ServiceRule) Rule() *EligibilityRule {
	if r == nil {
		return nil
	}
	return &EligibilityRule{MinAge: r.MinAge, MaxAge: r.MaxAge, Cohorts: r.Cohorts}
}

// Check refuses a service rule out of bounds, as EligibilityRule.Check.
func (r ServiceRule) Check() error { return r.Rule().Check() }

// ServiceEligibilityStore keeps the services' rules.
type ServiceEligibilityStore interface {
	// SetServiceEligibility sets (or, with remove, deletes) service's
	// rule; audited. A service that does not exist is CodeNotFound.
	SetServiceEligibility(ctx context.Context, rule ServiceRule, remove bool, now time.Time) (ServiceRule, error)
	// ServiceEligibility reads service's rule, nil for none.
	ServiceEligibility(ctx context.Context, serviceID int64) (*ServiceRule, error)
	// ListServiceEligibility lists the services' rules by service id, one
	// page at a time.
	ListServiceEligibility(ctx context.Context, p Page) ([]ServiceRule, error)
}

// AuditServiceEligibility records a service's rule set (before nil:
// created) or removed (after nil).
func AuditServiceEligibility(ctx context.Context, now time.Time, before, after *ServiceRule) AuditEntry {
	return auditRule(ctx, now, ruleChange[ServiceRule]{EntityServiceEligibility, before, after, func(r *ServiceRule) int64 { return r.ServiceID }})
}
