package booking

import (
	"slices"
	"time"
)

// Running a clinic (docs/clinic.md): closures, editing,
// booking policies and the no-overlap rule of a resource's slots. The
// decisions are pure; each store calls them inside its transaction with
// what it read.

// Closure scopes. A closure is a Suspension of one doctor, of every doctor
// of a department, or of the whole clinic.
const (
	ScopeDoctor     = "doctor"
	ScopeDepartment = "department"
	ScopeClinic     = "clinic"
)

// Covers reports whether standing suspension c closes slot sl of a doctor
// in department dept. Round slots (rooms) are never closed by it.
func (c Suspension) Covers(sl Slot, dept int64) bool {
	if c.LiftedAt != nil || sl.RoundID != 0 || sl.StartAt.Before(c.From) || !sl.StartAt.Before(c.To) {
		return false
	}
	return c.Concerns(sl.DoctorID, dept)
}

// Unclosed drops the slots that a standing closure covers: generation
// skips a closed period instead of creating slots only to close them.
func Unclosed(slots []Slot, closures []Suspension, dept int64) []Slot {
	if len(closures) == 0 {
		return slots
	}
	out := slots[:0:0]
	for _, sl := range slots {
		closed := false
		for _, c := range closures {
			if c.Covers(sl, dept) {
				closed = true
				break
			}
		}
		if !closed {
			out = append(out, sl)
		}
	}
	return out
}

// ScopeRefusal checks a closure's scope and the one id it names.
func ScopeRefusal(c Suspension) error {
	switch {
	case c.Scope == ScopeDoctor && c.DoctorID > 0 && c.DepartmentID == 0,
		c.Scope == ScopeDepartment && c.DepartmentID > 0 && c.DoctorID == 0,
		c.Scope == ScopeClinic && c.DoctorID == 0 && c.DepartmentID == 0:
		return nil
	}
	return Errorf(CodeInvalidRequest, "scope must be doctor (with doctorId), department (with departmentId) or clinic")
}

// CheckSuspension is the check and the defaults of a suspension or closure
// asked for, which every store applies before it records one: the scope is
// the doctor's when none is given and names its one id (ScopeRefusal); the
// period is kept in UTC to the microsecond (what the stores store), and
// must end after it starts once so kept, so that what is checked is what
// is recorded; what the store sets (ID, CreatedAt, LiftedAt) is never
// taken from the request. It returns the suspension to record.
func CheckSuspension(sus Suspension) (Suspension, error) {
	out := Suspension{Scope: sus.Scope, DoctorID: sus.DoctorID, DepartmentID: sus.DepartmentID, Reason: sus.Reason,
		From: sus.From.UTC().Truncate(time.Microsecond), To: sus.To.UTC().Truncate(time.Microsecond)}
	if !out.To.After(out.From) {
		return Suspension{}, Errorf(CodeInvalidRequest, "a suspension must end after it starts")
	}
	if out.Scope == "" {
		out.Scope = ScopeDoctor
	}
	if err := ScopeRefusal(out); err != nil {
		return Suspension{}, err
	}
	return out, nil
}

// SuspensionNotFound is the answer to a suspension whose target does not
// exist: the department of a department's closure, else the doctor (the
// clinic always exists).
func SuspensionNotFound(sus Suspension) error {
	if sus.Scope == ScopeDepartment {
		return NotFound("department")
	}
	return NotFound("doctor")
}

// ReopenRefusal refuses reopening a slot that standing suspension closedBy
// closed (0: none): it reopens when the suspension is lifted, and not
// before, or it could be booked inside a closed period.
func ReopenRefusal(slotID, closedBy int64, to string) error {
	if to == SlotOpen && closedBy != 0 {
		return &Error{Code: CodeSlotSuspended, SlotID: slotID,
			Message: "the slot was closed by a suspension or closure that still stands; lift it to reopen the slot"}
	}
	return nil
}

// LiftRefusal refuses lifting a suspension twice.
func LiftRefusal(s Suspension) error {
	if s.LiftedAt != nil {
		return Errorf(CodeConflict, "the suspension was already lifted")
	}
	return nil
}

// LiftResult is what lifting a suspension did.
type LiftResult struct {
	Suspension Suspension `json:"suspension"`
	// SlotsReopened counts the slots it had closed that are open again;
	// a slot another standing suspension covers passes to that one.
	SlotsReopened int `json:"slotsReopened"`
}

// --- editing ------------------------------------------------------------------

// DoctorUpdate changes a doctor; nil fields stay as they are.
type DoctorUpdate struct {
	Name         *string `json:"name"`
	DepartmentID *int64  `json:"departmentId"`
	Active       *bool   `json:"active"`
	// ProfileUpdate changes the profile (Validate it first).
	ProfileUpdate
}

// PatientUpdate changes a patient; nil fields stay as they are, and an
// empty phone or e-mail removes it.
type PatientUpdate struct {
	Name   *string `json:"name"`
	Phone  *string `json:"phone"`
	Email  *string `json:"email"`
	Active *bool   `json:"active"`
	// BirthDate, Sex, Relation and NationalID change only by an account's edit of a
	// person it manages (people.go), never by this body.
	BirthDate  *string `json:"-"`
	Sex        *string `json:"-"`
	Relation   *string `json:"-"`
	NationalID *string `json:"-"`
}

// Apply returns d changed by u.
func (u DoctorUpdate) Apply(d Doctor) Doctor {
	if u.Name != nil {
		d.Name = *u.Name
	}
	if u.DepartmentID != nil {
		d.DepartmentID = *u.DepartmentID
	}
	if u.Active != nil {
		d.Active = *u.Active
	}
	d.Profile = u.ProfileUpdate.Apply(d.Profile)
	return d
}

// Apply returns p changed by u.
func (u PatientUpdate) Apply(p Patient) Patient {
	if u.Name != nil {
		p.Name = *u.Name
	}
	if u.Phone != nil {
		p.Phone = *u.Phone
	}
	for _, f := range []struct{ dst, src *string }{{&p.BirthDate, u.BirthDate}, {&p.Sex, u.Sex}, {&p.Relation, u.Relation}, {&p.NationalID, u.NationalID}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if u.Email != nil {
		p.Email = *u.Email
	}
	if u.Active != nil {
		p.Active = *u.Active
	}
	return p
}

// ScheduleOverlap refuses schedule sc when another of the doctor's
// schedules still running on day (a civil date "YYYY-MM-DD", the doctor's
// today) shares a weekday and a part of its hours: their slots would
// overlap. "HH:MM" times compare as strings.
func ScheduleOverlap(sc Schedule, others []Schedule, day string) error {
	mask, _ := WeekdayMask(sc.Weekdays)
	for _, o := range others {
		if o.ID == sc.ID || (o.EndDate != "" && o.EndDate < day) || (sc.EndDate != "" && sc.EndDate < day) {
			continue
		}
		om, _ := WeekdayMask(o.Weekdays)
		if mask&om != 0 && sc.StartTime < o.EndTime && o.StartTime < sc.EndTime {
			return Errorf(CodeSlotOverlap, "the schedule overlaps schedule %d (%s-%s on a shared weekday); its slots would overlap", o.ID, o.StartTime, o.EndTime)
		}
	}
	return nil
}

// --- policies -----------------------------------------------------------------

// Policy is how a patient may book, cancel and be blocked. Zero turns a
// rule off.
type Policy struct {
	// MaxActive caps one patient's active (HELD, BOOKED or ARRIVED) appointments;
	// MaxPerDay those on one local day of the slot's doctor. Round
	// allocations are governed by the round's quota instead.
	MaxActive int `json:"maxActive"`
	MaxPerDay int `json:"maxPerDay"`
	// CancelCutoffHours: a patient cancels (or reschedules) only until
	// this many hours before the start; staff always can.
	CancelCutoffHours int `json:"cancelCutoffHours"`
	// NoShowLimit no-shows in NoShowWindow block a patient's self-booking
	// for NoShowBlockDays after the last of them.
	NoShowLimit     int `json:"noShowLimit"`
	NoShowBlockDays int `json:"noShowBlockDays"`
	// The refund rule of a patient's own cancel of a paid appointment
	// (RefundAmount): everything paid back until RefundFullHours before
	// the start, RefundPartialPercent of it until RefundPartialHours
	// before, nothing after. All 0: everything, until the start.
	RefundFullHours      int `json:"refundFullHours"`
	RefundPartialPercent int `json:"refundPartialPercent"`
	RefundPartialHours   int `json:"refundPartialHours"`
	// CheckInBeforeMinutes and CheckInAfterMinutes are the check-in window
	// (CheckInWindow): from that long before the start to that long after.
	// The clinic's only; a schedule does not override them.
	CheckInBeforeMinutes int `json:"checkInBeforeMinutes"`
	CheckInAfterMinutes  int `json:"checkInAfterMinutes"`
	// NoShowGraceMinutes: a BOOKED appointment not checked in this long
	// after its start becomes NO_SHOW by itself (AutoNoShow); 0 is off.
	NoShowGraceMinutes int `json:"noShowGraceMinutes"`
	// QueueSkipCalls: a patient skipped by the doctor's console comes back
	// into the queue after this many more calls (QueueDay.Order). The
	// clinic's only.
	QueueSkipCalls int `json:"queueSkipCalls"`
	// QueueNotifyAhead: a call that leaves an arrived patient this many
	// ahead sends them a message, once per appointment (QueueAheadNotice);
	// 0 is off. The clinic's only.
	QueueNotifyAhead int `json:"queueNotifyAhead"`
	// MaxPeople caps the people one account manages, itself included
	// (people.go): 0 or 1 lets it add nobody. The clinic's only.
	MaxPeople int `json:"maxPeople"`
	// RequireNationalID is real-name registration (nationalid.go): sign-up
	// and adding a person ask for a national ID number. Off by default.
	RequireNationalID bool `json:"requireNationalId"`
	// WalkInsPerSlot: the front desk may add this many walk-ins to a full
	// slot on its day (walkin.go); 0 is off. The clinic's only.
	WalkInsPerSlot int `json:"walkInsPerSlot"`
	// PublicOpeningSummary publishes the summary of each opening's
	// fairness report (OpeningSummary), for anyone. Off by default.
	PublicOpeningSummary bool `json:"publicOpeningSummary"`
}

// The clinic's default policy: the caps are on (OWASP API6: one patient
// cannot take a day's slots), the cutoff and the no-show rule are off.
// Ten active appointments and three on one day are far above what one
// person needs and far below a doctor's day of slots.
const (
	DefaultMaxActive = 10
	DefaultMaxPerDay = 3
	MaxPolicyValue   = 1000
	// NoShowWindow is how far back no-shows count.
	NoShowWindow = 90 * 24 * time.Hour
)

// DefaultPolicy is the policy of a new clinic.
var DefaultPolicy = Policy{MaxActive: DefaultMaxActive, MaxPerDay: DefaultMaxPerDay,
	CheckInBeforeMinutes: DefaultCheckInBeforeMinutes, CheckInAfterMinutes: DefaultCheckInAfterMinutes,
	QueueSkipCalls: DefaultQueueSkipCalls, QueueNotifyAhead: DefaultQueueNotifyAhead, MaxPeople: DefaultMaxPeople,
	WalkInsPerSlot: DefaultWalkInsPerSlot}

// PolicyOverride is a schedule's own policy: nil fields take the clinic's.
type PolicyOverride struct {
	MaxActive         *int `json:"maxActive,omitempty"`
	MaxPerDay         *int `json:"maxPerDay,omitempty"`
	CancelCutoffHours *int `json:"cancelCutoffHours,omitempty"`
	NoShowLimit       *int `json:"noShowLimit,omitempty"`
	NoShowBlockDays   *int `json:"noShowBlockDays,omitempty"`
	// The refund rule (Policy.RefundFullHours and the partial band).
	RefundFullHours      *int `json:"refundFullHours,omitempty"`
	RefundPartialPercent *int `json:"refundPartialPercent,omitempty"`
	RefundPartialHours   *int `json:"refundPartialHours,omitempty"`
}

// With is p with o's overrides.
func (p Policy) With(o PolicyOverride) Policy {
	for _, f := range []struct {
		dst *int
		src *int
	}{{&p.MaxActive, o.MaxActive}, {&p.MaxPerDay, o.MaxPerDay}, {&p.CancelCutoffHours, o.CancelCutoffHours},
		{&p.NoShowLimit, o.NoShowLimit}, {&p.NoShowBlockDays, o.NoShowBlockDays},
		{&p.RefundFullHours, o.RefundFullHours}, {&p.RefundPartialPercent, o.RefundPartialPercent}, {&p.RefundPartialHours, o.RefundPartialHours}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return p
}

// Validate refuses values outside 0..MaxPolicyValue, a check-in window
// side outside 0..MaxCheckInMinutes, a skip re-entry outside
// 0..MaxQueueSkipCalls and a message ahead outside 0..MaxQueueNotifyAhead.
func (p Policy) Validate() error {
	for _, v := range []int{p.MaxActive, p.MaxPerDay, p.CancelCutoffHours, p.NoShowLimit, p.NoShowBlockDays,
		p.RefundFullHours, p.RefundPartialHours} {
		if v < 0 || v > MaxPolicyValue {
			return Errorf(CodeInvalidRequest, "policy values must be 0 (off) to %d", MaxPolicyValue)
		}
	}
	if p.RefundPartialPercent < 0 || p.RefundPartialPercent > 100 {
		return Errorf(CodeInvalidRequest, "refundPartialPercent must be 0 to 100")
	}
	for _, v := range []int{p.CheckInBeforeMinutes, p.CheckInAfterMinutes, p.NoShowGraceMinutes} {
		if v < 0 || v > MaxCheckInMinutes {
			return Errorf(CodeInvalidRequest, "the check-in window's and the no-show grace's minutes must be 0 to %d", MaxCheckInMinutes)
		}
	}
	if p.QueueSkipCalls < 0 || p.QueueSkipCalls > MaxQueueSkipCalls {
		return Errorf(CodeInvalidRequest, "queueSkipCalls must be 0 to %d", MaxQueueSkipCalls)
	}
	if p.QueueNotifyAhead < 0 || p.QueueNotifyAhead > MaxQueueNotifyAhead {
		return Errorf(CodeInvalidRequest, "queueNotifyAhead must be 0 to %d", MaxQueueNotifyAhead)
	}
	if p.MaxPeople < 0 || p.MaxPeople > MaxPeopleLimit {
		return Errorf(CodeInvalidRequest, "maxPeople must be 0 to %d", MaxPeopleLimit)
	}
	if p.WalkInsPerSlot < 0 || p.WalkInsPerSlot > MaxWalkInsPerSlot {
		return Errorf(CodeInvalidRequest, "walkInsPerSlot must be 0 to %d", MaxWalkInsPerSlot)
	}
	return nil
}

// Validate refuses override values outside 0..MaxPolicyValue.
func (o PolicyOverride) Validate() error { return Policy{}.With(o).Validate() }

// PatientLoad is what a batch's decision reads of one patient: active
// appointments (ordinary slots only) in all and on the slot's local day,
// no-shows in the NoShowWindow before now and the latest one's start, and
// whether the patient's record is deactivated.
type PatientLoad struct {
	Active, SameDay int
	NoShows         int
	LastNoShow      time.Time
	Inactive        bool
}

// PolicyCheck is a patient's booking of ordinary slot SlotID, as the
// policy judges it: the Policy, the patient's Load, whether Staff books
// for the patient (not blocked by the no-show rule) and whether Freed (the
// patient's stale hold in this slot is reclaimed, so it no longer counts).
type PolicyCheck struct {
	Policy Policy
	Load   PatientLoad
	Staff  bool
	Freed  bool
	SlotID int64
}

// PolicyRefusal tells why c's policy refuses c's booking at now, or nil.
func PolicyRefusal(c PolicyCheck, now time.Time) *Error {
	p, load, staff, slotID := c.Policy, c.Load, c.Staff, c.SlotID
	if c.Freed {
		load.Active, load.SameDay = load.Active-1, load.SameDay-1
	}
	switch {
	case !staff && p.NoShowLimit > 0 && load.NoShows >= p.NoShowLimit &&
		now.Before(load.LastNoShow.Add(time.Duration(p.NoShowBlockDays)*24*time.Hour)):
		return &Error{Code: CodeBookingBlocked, SlotID: slotID,
			Message: "self-booking is blocked after repeated no-shows; please call the clinic"}
	case p.MaxActive > 0 && load.Active >= p.MaxActive:
		e := Errorf(CodeLimitReached, "the patient already holds the most active appointments allowed (%d)", p.MaxActive)
		e.SlotID = slotID
		return e
	case p.MaxPerDay > 0 && load.SameDay >= p.MaxPerDay:
		e := Errorf(CodeLimitReached, "the patient already holds the most appointments allowed on this day (%d)", p.MaxPerDay)
		e.SlotID = slotID
		return e
	}
	return nil
}

// DayBounds is the local day of t in loc, as UTC instants [from, to).
func DayBounds(t time.Time, loc *time.Location) (from, to time.Time) {
	l := t.In(loc)
	d := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	return d.UTC(), d.AddDate(0, 0, 1).UTC()
}

// SlotOverlap refuses planned slots of a resource that overlap its
// existing ordinary slots (which never overlap each other, so sorted by
// start their ends are sorted too). A planned slot equal to an existing one
// is that one, found again.
func SlotOverlap(planned, existing []Slot) error {
	ex := make([]Slot, 0, len(existing))
	for _, e := range existing {
		if e.RoundID == 0 {
			ex = append(ex, e)
		}
	}
	slices.SortFunc(ex, func(a, b Slot) int { return a.StartAt.Compare(b.StartAt) })
	for _, p := range planned {
		i, _ := slices.BinarySearchFunc(ex, p.EndAt, func(e Slot, t time.Time) int { return e.StartAt.Compare(t) })
		if i == 0 {
			continue
		}
		e := ex[i-1]
		if e.StartAt.Equal(p.StartAt) && e.EndAt.Equal(p.EndAt) {
			continue
		}
		if e.EndAt.After(p.StartAt) {
			return Errorf(CodeSlotOverlap, "the schedule's slot at %s overlaps the doctor's slot %d (%s-%s)",
				p.StartAt.Format(time.RFC3339), e.ID, e.StartAt.Format(time.RFC3339), e.EndAt.Format(time.RFC3339))
		}
	}
	return nil
}
