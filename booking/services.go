package booking

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// A service (a visit type) is what a patient chooses before a doctor: a
// GP visit, a specialist consultation, a vaccine. Its duration is a
// multiple of the doctors' base slot; a longer one takes that many
// consecutive slots of one doctor (booking/visit.go).

// Level says whether a service is an ordinary or a specialist one (普通号,
// 专家号); patients filter on it and see it on the card.
type Level string

// The levels.
const (
	LevelOrdinary   Level = "ordinary"
	LevelSpecialist Level = "specialist"
)

// Bounds of a service.
const (
	// MaxServiceMinutes bounds a service's duration (a half day).
	MaxServiceMinutes = 240
	// MaxServiceDoctors bounds the doctors one service lists.
	MaxServiceDoctors = 500
	// MaxServiceName bounds a service's name, in characters.
	MaxServiceName = 200
	// MaxServiceNotes bounds the notes shown before booking, in characters.
	MaxServiceNotes = 1000
	// MaxVisitSlots bounds the slots one visit takes (and so the rows a
	// visit locks): a 4-hour visit of 5-minute slots would need 48.
	MaxVisitSlots = 48
)

// Service is a visit type the clinic offers.
type Service struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Minutes int    `json:"durationMinutes"`
	// FeeCents is the price shown for the service, in the clinic
	// currency's minor units.
	FeeCents  int64   `json:"fee"`
	Level     Level   `json:"level"`
	DoctorIDs []int64 `json:"doctorIds"`
	Notes     string  `json:"notes,omitempty"`
	// Active is false once withdrawn: hidden from listings, not bookable;
	// appointments made stay.
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"createdAt"`
}

// Offers says whether doctorID offers the service.
func (s Service) Offers(doctorID int64) bool { return slices.Contains(s.DoctorIDs, doctorID) }

// ServiceUpdate changes a service; nil fields stay as they are.
type ServiceUpdate struct {
	Name      *string
	Minutes   *int
	FeeCents  *int64
	Level     *Level
	DoctorIDs *[]int64
	Notes     *string
	Active    *bool
}

// Apply returns s changed by u.
func (u ServiceUpdate) Apply(s Service) Service {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.Name, u.Name)
	set(&s.Notes, u.Notes)
	if u.Minutes != nil {
		s.Minutes = *u.Minutes
	}
	if u.FeeCents != nil {
		s.FeeCents = *u.FeeCents
	}
	if u.Level != nil {
		s.Level = *u.Level
	}
	if u.DoctorIDs != nil {
		s.DoctorIDs = slices.Clone(*u.DoctorIDs)
	}
	if u.Active != nil {
		s.Active = *u.Active
	}
	return s
}

// Validate checks a service before it is written, and puts its doctors in
// ascending order without repeats.
func (s *Service) Validate() error {
	s.Name = strings.TrimSpace(s.Name)
	slices.Sort(s.DoctorIDs)
	s.DoctorIDs = slices.Compact(s.DoctorIDs)
	switch {
	case s.Name == "" || utf8.RuneCountInString(s.Name) > MaxServiceName:
		return Errorf(CodeInvalidRequest, "name must be 1 to %d characters", MaxServiceName)
	case s.Minutes < 5 || s.Minutes > MaxServiceMinutes || s.Minutes%5 != 0:
		return Errorf(CodeInvalidRequest, "durationMinutes must be a multiple of 5 from 5 to %d", MaxServiceMinutes)
	case s.FeeCents < 0 || s.FeeCents > MaxFeeCents:
		return Errorf(CodeInvalidRequest, "fee must be from 0 to %d", MaxFeeCents)
	case s.Level != LevelOrdinary && s.Level != LevelSpecialist:
		return Errorf(CodeInvalidRequest, "level must be %q or %q", LevelOrdinary, LevelSpecialist)
	case len(s.DoctorIDs) > MaxServiceDoctors:
		return Errorf(CodeInvalidRequest, "a service lists at most %d doctors", MaxServiceDoctors)
	case utf8.RuneCountInString(s.Notes) > MaxServiceNotes:
		return Errorf(CodeInvalidRequest, "notes must be at most %d characters", MaxServiceNotes)
	}
	for _, id := range s.DoctorIDs {
		if id <= 0 || id > MaxID {
			return Errorf(CodeInvalidRequest, "doctorIds must be positive ids")
		}
	}
	return nil
}

// ServiceStore keeps the services and books visits of them.
type ServiceStore interface {
	// CreateService writes a validated service and its doctors; an
	// unknown doctor is not-found; audited.
	CreateService(ctx context.Context, s Service) (Service, error)
	// UpdateService changes a service in one transaction (Apply, then
	// Validate); audited.
	UpdateService(ctx context.Context, id int64, u ServiceUpdate) (Service, error)
	// GetService reads one service, active or not.
	GetService(ctx context.Context, id int64) (Service, error)
	// ListServices lists services by id, one page at a time; only active
	// ones unless all, and only those doctorID offers when it is not 0.
	ListServices(ctx context.Context, f ServiceFilter, p Page) ([]Service, error)
	// BookVisit books a visit of a service from a slot in one
	// transaction: the slots of the run locked in id order, then
	// DecideVisit, then its writes (docs/contracts/store.md).
	BookVisit(ctx context.Context, r VisitRequest, now time.Time) (BookResult, error)
	// ListOpenSlots lists the OPEN slots q asks for, by doctor then
	// start (FreePlaces reads them).
	ListOpenSlots(ctx context.Context, q OpenSlots) ([]Slot, error)
}

// ServiceFilter selects services to list.
type ServiceFilter struct {
	DoctorID int64
	All      bool
}

// serviceState is what the audit log keeps of a service.
type serviceState struct {
	Name      string  `json:"name"`
	Minutes   int     `json:"durationMinutes"`
	FeeCents  int64   `json:"fee"`
	Level     Level   `json:"level"`
	DoctorIDs []int64 `json:"doctorIds"`
	Active    bool    `json:"active"`
}

func stateOfService(s *Service) any {
	if s == nil {
		return nil
	}
	return serviceState{Name: s.Name, Minutes: s.Minutes, FeeCents: s.FeeCents, Level: s.Level, DoctorIDs: s.DoctorIDs, Active: s.Active}
}

// AuditService is the entry of a service created (before nil) or changed.
func AuditService(ctx context.Context, now time.Time, before *Service, after Service) AuditEntry {
	action := "update"
	if before == nil {
		action = "create"
	}
	return Audit(ctx, now, AuditChange{Entity: EntityService, ID: after.ID, Action: action,
		Before: stateOfService(before), After: stateOfService(&after)})
}

// visitState is the log's state of a visit's first appointment: the
// appointment's, with the service and its other places.
type visitState struct {
	ApptState
	ServiceID int64   `json:"serviceId"`
	Places    []int64 `json:"places"`
}

// AuditVisit is the entry of a visit booked: the appointment, with the
// service and the further slots it takes.
func AuditVisit(ctx context.Context, now time.Time, a Appointment, extra []int64) AuditEntry {
	e := auditAppointment(ActorOf(ctx), now, "book", "", a)
	e.After = stateJSON(visitState{ApptState: apptAfter(a), ServiceID: a.ServiceID, Places: extra})
	return e
}
