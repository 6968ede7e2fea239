package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// WalkInObserver is what an Options.Observer may also implement to count
// walk-ins (cmd/slotd's metrics do).
type WalkInObserver interface {
	// WalkIn counts one walk-in by outcome (booking.WalkInOutcome).
	WalkIn(outcome string)
}

// WalkIn adds walk-in r for caller, the front desk (booking.Desk): a place
// beyond the capacity of a full slot on its day, for the reason given (see
// booking.DecideWalkIn for the refusals). r.Key is the request's
// Idempotency-Key: a retry answers the first result with replay set.
func (s *Service) WalkIn(ctx context.Context, caller booking.Actor, r booking.WalkInRequest) (a booking.Appointment, replay bool, err error) {
	defer func() {
		if o, ok := s.observer.(WalkInObserver); ok {
			o.WalkIn(booking.WalkInOutcome(replay, err))
		}
	}()
	if !booking.Desk(caller.Role) {
		return booking.Appointment{}, false, booking.Errorf(booking.CodeForbidden, "only the front desk adds walk-ins")
	}
	if r.PatientID <= 0 || r.SlotID <= 0 {
		return booking.Appointment{}, false, booking.Errorf(booking.CodeInvalidRequest, "a walk-in names its slot and patient")
	}
	if err := s.onSite(ctx, caller, booking.SiteRef{SlotID: r.SlotID}); err != nil {
		return booking.Appointment{}, false, err
	}
	if r.Reason, err = booking.CheckWalkInReason(r.Reason); err != nil {
		return booking.Appointment{}, false, err
	}
	tctx, cancel := context.WithTimeout(booking.WithActor(ctx, caller), s.timeout)
	defer cancel()
	a, replay, err = s.store.WalkIn(tctx, r, s.now())
	if err = s.storeErr(tctx, err); err == nil && !replay {
		s.slotChanged(a.SlotID, a.DoctorID) // the day pages and caches show the new place
	}
	return a, replay, err
}
