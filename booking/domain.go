// Package booking is slotd's domain: slots, appointments and their one state
// machine, the error codes every adapter speaks, the Store interface the
// adapters implement and the Service that decides bookings.
//
// It imports no adapter; postgres, sqlite and httpapi import it.
package booking

import (
	"slices"
	"time"
)

// Department is a clinic department such as cardiology.
type Department struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// SiteID is the site the department, and its doctors, belong to; 0
	// on create means the first site.
	SiteID    int64     `json:"siteId"`
	CreatedAt time.Time `json:"createdAt"`
}

// Doctor is a resource that has slots, defined in its own IANA time zone
// (rooms, the other kind, are in rounds.go).
type Doctor struct {
	ID           int64  `json:"id"`
	Name         string `json:"name"`
	DepartmentID int64  `json:"departmentId"`
	TimeZone     string `json:"timezone"`
	// Active is false once deactivated: hidden from listings, no new
	// slots; existing appointments stay.
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"createdAt"`
	// Profile is what patients read to choose (doctor_profile.go).
	Profile
}

// Location loads the doctor's time zone.
func (d Doctor) Location() (*time.Location, error) { return time.LoadLocation(d.TimeZone) }

// Patient is the person who books. Phone and Email are personal data: they
// are never logged.
type Patient struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Phone string `json:"phone,omitempty"`
	Email string `json:"email,omitempty"`
	// Language is the language the patient chose on the pages (an i18n
	// tag), "" for the clinic's; notifications speak it.
	Language string `json:"language,omitempty"`
	// BirthDate (YYYY-MM-DD) and Sex (one of Sexes) are what the patient
	// gave at sign-up, "" when not given; personal data, sealed like the
	// name.
	BirthDate string `json:"birthDate,omitempty"`
	Sex       string `json:"sex,omitempty"`
	// NationalID is the national ID number a clinic with real-name
	// registration asks for (nationalid.go), normalized; "" when not
	// given. Personal data, sealed like the phone, unique by its keyed hash.
	NationalID string `json:"nationalId,omitempty"`
	// Active is false once deactivated: the patient books no more.
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"createdAt"`
	// ErasedAt is when the patient's personal fields were erased (name,
	// phone, e-mail, language, birth date, sex and national ID are then empty); nil for a patient.
	ErasedAt *time.Time `json:"erasedAt,omitempty"`
	// ManagerID is the account that manages this person (people.go), 0
	// for an account's own row; Relation is RelationSelf for an account,
	// else the person's relation to it, and ConsentAt when the account
	// confirmed it may give the person's data (nil for an account).
	ManagerID int64      `json:"managerId,omitempty"`
	Relation  string     `json:"relation,omitempty"`
	ConsentAt *time.Time `json:"consentAt,omitempty"`
}

// Slot status values as stored. A slot is bookable only when OPEN, after its
// OpensAt and before its StartAt.
const (
	SlotOpen   = "OPEN"
	SlotClosed = "CLOSED"
)

// Slot is one bookable unit of a resource: BookedCount of Capacity places
// are taken by active (ActiveStatuses) appointments.
type Slot struct {
	ID          int64     `json:"id"`
	DoctorID    int64     `json:"doctorId"`
	ScheduleID  int64     `json:"scheduleId,omitempty"`
	StartAt     time.Time `json:"startAt"`
	EndAt       time.Time `json:"endAt"`
	Capacity    int       `json:"capacity"`
	BookedCount int       `json:"booked"`
	OpensAt     time.Time `json:"opensAt"`
	Status      string    `json:"status"`
	// FeeCents > 0 makes a booking a HELD appointment awaiting payment.
	FeeCents int64 `json:"fee"`
	// HoldSeconds is how long a HELD appointment of this slot waits for payment.
	HoldSeconds int `json:"holdSeconds"`
	// RoundID is the round the slot belongs to, 0 for an ordinary slot.
	RoundID int64 `json:"roundId,omitempty"`
	// OfferPending counts places released and kept for the waitlist until
	// the offer job gives them out (they are in BookedCount).
	OfferPending int `json:"offerPending,omitempty"`
}

// Remaining is the number of free places.
func (s Slot) Remaining() int { return s.Capacity - s.BookedCount }

// Started tells whether the slot has begun at now: from then on it takes
// no booking, and its appointments can be marked completed or a no-show.
func (s Slot) Started(now time.Time) bool { return !now.Before(s.StartAt) }

// Bookable tells why the slot cannot be booked at now, or nil. It is the rule
// the gates and the stores' classification share; the database decision
// repeats it as a condition of the UPDATE.
func (s Slot) Bookable(now time.Time) error {
	switch {
	case s.Status != SlotOpen:
		return &Error{Code: CodeSlotClosed, Message: "the slot is closed", SlotID: s.ID}
	case s.Started(now):
		return &Error{Code: CodeSlotClosed, Message: "the slot has already started", SlotID: s.ID}
	case now.Before(s.OpensAt):
		opens := s.OpensAt
		e := Errorf(CodeNotOpenYet, "booking for this slot opens at %s", opens)
		e.SlotID, e.OpensAt = s.ID, &opens
		return e
	case s.BookedCount >= s.Capacity:
		return &Error{Code: CodeSlotFull, Message: "no place left in this slot", SlotID: s.ID}
	}
	return nil
}

// Schedule is a working pattern of a doctor from which slots are generated.
type Schedule struct {
	ID       int64 `json:"id"`
	DoctorID int64 `json:"doctorId"`
	// Weekdays lists the days the pattern applies to (time.Sunday = 0).
	Weekdays []time.Weekday `json:"weekdays"`
	// StartTime and EndTime are local wall-clock times "HH:MM" in the
	// doctor's zone; slots fill [StartTime, EndTime).
	StartTime   string `json:"startTime"`
	EndTime     string `json:"endTime"`
	SlotMinutes int    `json:"slotMinutes"`
	Capacity    int    `json:"capacity"`
	FeeCents    int64  `json:"fee"`
	// HorizonDays is how many days ahead slots exist (default 14).
	HorizonDays int `json:"horizonDays"`
	// OpensAtTime is the local time "HH:MM" at which a day's slots open for
	// booking, HorizonDays before that day (default "07:00").
	OpensAtTime string `json:"opensAtTime"`
	HoldMinutes int    `json:"holdMinutes"`
	// EndDate ends the schedule: no slots after this local day
	// ("YYYY-MM-DD", "" for none).
	EndDate string `json:"endDate,omitempty"`
	// Policy overrides the clinic's policy for the schedule's slots.
	Policy    PolicyOverride `json:"policy"`
	CreatedAt time.Time      `json:"createdAt"`
	// Reminders are the schedule's own reminder offsets ("24h,2h"; empty:
	// the server's --reminders); OfferMinutes how long a waitlist offer of
	// its slots is held (0: DefaultOfferMinutes).
	Reminders    string `json:"reminders,omitempty"`
	OfferMinutes int    `json:"offerMinutes,omitempty"`
	// GeneratedThrough is the last local day ("YYYY-MM-DD", "" for none)
	// through which the rolling passes generated the schedule's slots; they
	// generate only the days after it (see DueDays).
	GeneratedThrough string `json:"-"`
}

// Schedule defaults.
const (
	DefaultHorizonDays = 14
	DefaultOpensAtTime = "07:00"
	DefaultHoldMinutes = 15
)

// Status is an appointment's state.
type Status string

// Appointment states. HELD, BOOKED and ARRIVED occupy a place; the others
// do not.
const (
	StatusHeld   Status = "HELD"
	StatusBooked Status = "BOOKED"
	// StatusArrived is a booked patient checked in on the day: still on
	// the place (the queue number is theirs) until seen or gone.
	StatusArrived   Status = "ARRIVED"
	StatusCancelled Status = "CANCELLED"
	StatusExpired   Status = "EXPIRED"
	StatusCompleted Status = "COMPLETED"
	StatusNoShow    Status = "NO_SHOW"
)

// Statuses are all the states, in the order of the transitions table: the
// one list that validation messages, Sources and the API's enum follow.
var Statuses = []Status{StatusHeld, StatusBooked, StatusArrived, StatusCancelled, StatusExpired, StatusCompleted, StatusNoShow}

// ActiveStatuses are the states that occupy a place: THE list. ActiveSQL
// (sql.go) spells it for the stores' queries (a test keeps the two equal);
// the schemas' partial indexes and triggers repeat it, and a new state
// must be added there too (a migration).
var ActiveStatuses = []Status{StatusHeld, StatusBooked, StatusArrived}

// Active reports whether an appointment in this state occupies a place.
func (s Status) Active() bool { return slices.Contains(ActiveStatuses, s) }

// Valid reports whether s is a known state.
func (s Status) Valid() bool {
	_, ok := transitions[s]
	return ok
}

// transitions is the one table of allowed appointment state changes. Every
// state change in every store is checked against it and then executed as a
// conditional update WHERE status = <from>.
var transitions = map[Status][]Status{
	StatusHeld:   {StatusBooked, StatusCancelled, StatusExpired},
	StatusBooked: {StatusArrived, StatusCancelled, StatusCompleted, StatusNoShow},
	// An arrived patient is seen (COMPLETED), leaves unseen (NO_SHOW), or
	// the visit is called off by staff or a suspension (CANCELLED).
	StatusArrived:   {StatusCompleted, StatusNoShow, StatusCancelled},
	StatusCancelled: nil,
	StatusExpired:   nil,
	StatusCompleted: nil,
	StatusNoShow:    nil,
}

// CanTransition reports whether an appointment may go from one state to another.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// Appointment is a patient's claim on one place in a slot.
type Appointment struct {
	ID        int64  `json:"id"`
	SlotID    int64  `json:"slotId"`
	DoctorID  int64  `json:"doctorId"`
	PatientID int64  `json:"patientId"`
	Status    Status `json:"status"`
	// QueueNumber is the place's number in its slot ("No. 3"), the lowest
	// free one in 1..capacity when it was booked.
	QueueNumber   int        `json:"queueNumber"`
	StartAt       time.Time  `json:"startAt"`
	EndAt         time.Time  `json:"endAt"`
	HoldExpiresAt *time.Time `json:"holdExpiresAt,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	// IdempotencyKey and Fingerprint identify the request that created it.
	IdempotencyKey string `json:"-"`
	Fingerprint    string `json:"-"`
	// RoundID is the round of the appointment's slot (a room allocation), 0
	// otherwise. Round allocations are governed by the round's quota and
	// are exempt from the overlap rule (invariant 3): a student holds a
	// room for the whole term, which any other appointment overlaps.
	RoundID int64 `json:"roundId,omitempty"`
	// ServiceID is the service booked (a visit, booking/visit.go), 0 for
	// a plain booking of one slot.
	ServiceID int64 `json:"serviceId,omitempty"`
	// WalkIn marks a place the front desk added to a full slot on the day
	// (walkin.go), for WalkInReason.
	WalkIn       bool   `json:"walkIn,omitempty"`
	WalkInReason string `json:"walkInReason,omitempty"`
}

// Sources lists the states from which an appointment may move to `to`, in
// the order of the table; stores use it as the WHERE status IN (...) of the
// conditional update that performs the transition.
func Sources(to Status) []Status {
	var from []Status
	for _, s := range Statuses {
		if CanTransition(s, to) {
			from = append(from, s)
		}
	}
	return from
}
