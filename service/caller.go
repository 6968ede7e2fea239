package service

import (
	"context"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// ActFor answers, for every front end alike (the API, the pages, FHIR),
// whether caller may act for the patient it names (0: itself) and how:
// booking.ActFor's rule of roles, then, for staff, that the named patient
// exists and has not left (booking.DepartedRefusal), so that an unknown id
// is a 404 and not a foreign-key failure inside a booking transaction. A
// patient acting for themselves costs no read here: the change they make
// refuses a departed patient in its own transaction (a booking, through
// DecideBooking) or reads them first (present). A patient naming another
// patient is asked of the managers cache (people.go): no read of the
// database once the person is known, and a person removed since is
// deactivated, which the change refuses in its own transaction. The
// booking budget is AttemptBooking's, spent by the front end before it
// parses a body.
func (s *Service) ActFor(ctx context.Context, caller booking.Actor, named int64) (booking.Acting, error) {
	var self int64
	managed := false
	if caller.Role == booking.RolePatient {
		self, _ = strconv.ParseInt(caller.ID, 10, 64)
		if named != 0 && named != self {
			var err error
			if managed, err = s.manages(ctx, self, named); err != nil {
				return booking.Acting{}, err
			}
		}
	}
	a, refusal := booking.ActFor(caller, self, named, managed)
	if refusal != nil {
		return booking.Acting{}, refusal
	}
	if a.Staff {
		if err := s.present(ctx, a.PatientID); err != nil {
			return booking.Acting{}, err
		}
	}
	return a, nil
}

// present refuses a change for a patient who does not exist or has left.
func (s *Service) present(ctx context.Context, patientID int64) error {
	p, err := bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.GetPatient(ctx, patientID) })
	if err != nil {
		return err
	}
	if refusal := booking.DepartedRefusal(p); refusal != nil {
		return refusal
	}
	return nil
}

// Present refuses a patient who does not exist or has left (deactivated or
// erased), for what a front end keeps outside the Service's changes: the
// calendar subscription asks it before it makes a link and serves a feed.
func (s *Service) Present(ctx context.Context, patientID int64) error {
	return s.present(ctx, patientID)
}
