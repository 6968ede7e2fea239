package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/slotd/slotd/booking"
)

// Suspend closes a doctor's slots in a period and cancels their active
// appointments; repeating it changes nothing. The gates reload the closed
// slots, so that this instance neither keeps them marked full nor lets them
// look open (other instances notice within their gates' TTL; the database
// refuses bookings of closed slots anyway).
//
// An admin limited to sites suspends a doctor or closes a department of
// its sites (another's is not found); a closure of the clinic is not its
// to make (403).
func (s *Service) Suspend(ctx context.Context, sus booking.Suspension) (booking.SuspensionResult, error) {
	var err error
	switch sus.Scope {
	case booking.ScopeDoctor, "":
		err = s.onSites(ctx, booking.SiteRef{DoctorID: sus.DoctorID})
	case booking.ScopeDepartment:
		err = s.onSites(ctx, booking.SiteRef{DepartmentID: sus.DepartmentID})
	case booking.ScopeClinic:
		err = s.runsClinic(ctx)
	}
	if err != nil {
		return booking.SuspensionResult{}, err
	}
	res, err := bounded(s, ctx, func(ctx context.Context) (booking.SuspensionResult, error) { return s.store.Suspend(ctx, sus, s.now()) })
	if err != nil || res.Existing {
		return res, err
	}
	if res.Suspension.Scope != booking.ScopeDoctor {
		// A closure of a department or the clinic: many doctors' slots.
		s.gates.forgetAll()
		s.changedScope(ctx, res.Suspension)
		return res, nil
	}
	sls, lerr := bounded(s, ctx, func(ctx context.Context) ([]booking.Slot, error) {
		return s.store.ListSlots(ctx, res.Suspension.DoctorID, res.Suspension.From, res.Suspension.To)
	})
	if lerr != nil {
		// The suspension is done; unlisted slots only cost the gates' TTL.
		s.gates.forgetAll()
	}
	for _, sl := range sls {
		s.gates.forget(sl.ID)
	}
	s.changed(booking.Appointment{DoctorID: res.Suspension.DoctorID})
	return res, nil
}

// ListSuspensions lists suspensions and closures, newest first.
func (s *Service) ListSuspensions(ctx context.Context, standing bool) ([]booking.Suspension, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Suspension, error) { return s.store.ListSuspensions(ctx, standing) })
}

// LiftSuspension lifts a suspension or closure and reopens the slots it
// closed. The gates forget every slot: which ones reopened is the
// store's to know, and a lift is rare.
func (s *Service) LiftSuspension(ctx context.Context, id int64) (booking.LiftResult, error) {
	res, err := bounded(s, ctx, func(ctx context.Context) (booking.LiftResult, error) { return s.store.LiftSuspension(ctx, id, s.now()) })
	if err == nil {
		s.gates.forgetAll()
		err = s.generateLifted(ctx, res.Suspension)
		s.changedScope(ctx, res.Suspension)
	}
	return res, err
}

// generateLifted generates the slots a lifted closure made generation
// skip: the passes' marks have moved past those days (LiftedDays).
func (s *Service) generateLifted(ctx context.Context, c booking.Suspension) error {
	ss, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Schedule, error) {
		if c.Scope == booking.ScopeDoctor || c.Scope == "" {
			return s.store.ListSchedules(ctx, c.DoctorID)
		}
		return s.store.ListSchedules(ctx, 0)
	})
	if err != nil {
		return err
	}
	var errs []error
	for _, sc := range ss {
		_, err := bounded(s, ctx, func(ctx context.Context) (int, error) {
			d, err := s.store.GetDoctor(ctx, sc.DoctorID)
			if err != nil || !c.Concerns(d.ID, d.DepartmentID) {
				return 0, err
			}
			loc, ins, err := s.generation(ctx, sc.DoctorID)
			if err != nil || ins == nil {
				return 0, err
			}
			first, last, ok := s.window(sc, loc)
			if ok {
				first, last, ok = booking.LiftedDays(c, first, last)
			}
			if !ok {
				return 0, nil
			}
			n, _, err := generate(ctx, ins, sc, loc, first, last)
			return n, err
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("schedule %d: %w", sc.ID, err))
		}
	}
	return errors.Join(errs...)
}

// changedScope tells the watchers of every doctor a suspension concerns.
func (s *Service) changedScope(ctx context.Context, sus booking.Suspension) {
	if sus.Scope == booking.ScopeDoctor || sus.Scope == "" {
		s.changed(booking.Appointment{DoctorID: sus.DoctorID})
		return
	}
	dept := int64(0)
	if sus.Scope == booking.ScopeDepartment {
		dept = sus.DepartmentID
	}
	ds, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Doctor, error) {
		return s.store.ListDoctors(ctx, dept, booking.Page{})
	})
	if err != nil {
		return // the list caches expire on their own
	}
	for _, d := range ds {
		s.changed(booking.Appointment{DoctorID: d.ID})
	}
}
