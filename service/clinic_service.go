package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// The Service's changes of issue 15: editing, policies, closures. Like the
// others each bounds its store calls, classifies errors and tells the
// gates and watchers what changed.

// UpdateDepartment renames a department.
func (s *Service) UpdateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Department, error) { return s.store.UpdateDepartment(ctx, d) })
}

// UpdateDoctor changes a doctor. A deactivated doctor is hidden from
// listings and gets no new slots; existing appointments stay (staff cancel
// them explicitly, or suspend the period).
func (s *Service) UpdateDoctor(ctx context.Context, id int64, u booking.DoctorUpdate) (booking.Doctor, error) {
	d, err := bounded(s, ctx, func(ctx context.Context) (booking.Doctor, error) { return s.store.UpdateDoctor(ctx, id, u) })
	if err == nil {
		s.changed(booking.Appointment{DoctorID: d.ID})
	}
	return d, err
}

// UpdatePatient changes a patient's name, contact details or activity.
// A new phone is stored in E.164, as CreatePatient stores it.
func (s *Service) UpdatePatient(ctx context.Context, id int64, u booking.PatientUpdate) (booking.Patient, error) {
	if u.Phone != nil && *u.Phone != "" {
		p := s.NormalizePhone(*u.Phone)
		if p == "" {
			return booking.Patient{}, booking.Errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
		}
		u.Phone = &p
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.UpdatePatient(ctx, id, u) })
}

// ClinicPolicy returns the clinic's default policy.
func (s *Service) ClinicPolicy(ctx context.Context) (booking.Policy, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Policy, error) { return s.store.ClinicPolicy(ctx) })
}

// SetClinicPolicy replaces the clinic's default policy.
func (s *Service) SetClinicPolicy(ctx context.Context, p booking.Policy) (booking.Policy, error) {
	if err := p.Validate(); err != nil {
		return booking.Policy{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Policy, error) { return s.store.SetClinicPolicy(ctx, p) })
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
	ds, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Doctor, error) { return s.store.ListDoctors(ctx, dept) })
	if err != nil {
		return // the list caches expire on their own
	}
	for _, d := range ds {
		s.changed(booking.Appointment{DoctorID: d.ID})
	}
}

// UpdateSchedule edits a schedule (pattern, end date, policy) and
// regenerates its future: the slots from now on that no appointment ever
// named are deleted and generated again from the new pattern; slots with
// appointments are never changed behind a patient's back. It reports how
// many slots it deleted and created.
func (s *Service) UpdateSchedule(ctx context.Context, sc booking.Schedule) (booking.Schedule, int, int, error) {
	if err := schedule.Normalize(&sc); err != nil {
		return sc, 0, 0, err
	}
	if err := booking.CheckScheduleWaitlist(sc); err != nil {
		return sc, 0, 0, err
	}
	if err := sc.Policy.Validate(); err != nil {
		return sc, 0, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	old, err := s.store.GetSchedule(ctx, sc.ID)
	if err != nil {
		return sc, 0, 0, s.storeErr(ctx, err)
	}
	sc.DoctorID = old.DoctorID
	if sc, err = s.store.UpdateSchedule(ctx, sc); err != nil {
		return sc, 0, 0, s.storeErr(ctx, err)
	}
	deleted, err := s.store.DeleteFreeSlots(ctx, sc.ID, s.now())
	if err != nil {
		return sc, 0, 0, s.storeErr(ctx, err)
	}
	defer s.changed(booking.Appointment{DoctorID: sc.DoctorID})
	loc, ins, err := s.generation(ctx, sc.DoctorID)
	if err != nil || ins == nil {
		return sc, deleted, 0, s.storeErr(ctx, err)
	}
	first, last, ok := s.window(sc, loc)
	if !ok {
		return sc, deleted, 0, nil
	}
	// The new pattern's window is generated whole; the mark then says so
	// (set, not advanced: a shortened window marks its new end).
	created, err := s.generateMarked(ctx, ins, sc, loc, first, last)
	return sc, deleted, created, s.storeErr(ctx, err)
}

// window is the schedule's generation window at now, ended by its
// EndDate; ok is false when nothing is left of it.
func (s *Service) window(sc booking.Schedule, loc *time.Location) (first, last time.Time, ok bool) {
	first, last = WindowDays(sc, loc, s.now())
	return clip(sc, first, last)
}

// clip ends [first, last] (UTC midnights of civil dates) at sc's EndDate.
func clip(sc booking.Schedule, first, last time.Time) (time.Time, time.Time, bool) {
	if sc.EndDate != "" {
		if end, err := time.Parse(time.DateOnly, sc.EndDate); err == nil && end.Before(last) {
			last = end
		}
	}
	return first, last, !last.Before(first)
}

// generation prepares the generation of a doctor's slots: the zone, and an
// inserter that skips the slots standing closures cover (nil when the
// doctor is deactivated: generation stops).
func (s *Service) generation(ctx context.Context, doctorID int64) (*time.Location, schedule.SlotInserter, error) {
	d, err := s.store.GetDoctor(ctx, doctorID)
	if err != nil {
		return nil, nil, err
	}
	loc, err := d.Location()
	if err != nil || !d.Active {
		return loc, nil, err
	}
	cs, err := s.store.ListSuspensions(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	return loc, closedSkipper{ins: s.store, closures: cs, dept: d.DepartmentID}, nil
}

// closedSkipper inserts only the slots no standing closure covers.
type closedSkipper struct {
	ins      schedule.SlotInserter
	closures []booking.Suspension
	dept     int64
}

func (c closedSkipper) InsertSlots(ctx context.Context, slots []booking.Slot) (int, error) {
	return c.ins.InsertSlots(ctx, booking.Unclosed(slots, c.closures, c.dept))
}

// overlapsExisting plans sc's slots over its window and refuses them when
// they overlap the doctor's existing slots (SlotOverlap); the constraint
// slots_no_overlap stays the last line for a slot added meanwhile.
func (s *Service) overlapsExisting(ctx context.Context, sc booking.Schedule, loc *time.Location) error {
	first, last, ok := s.window(sc, loc)
	if !ok {
		return nil
	}
	var plan slotCollector
	if _, _, err := generate(ctx, &plan, sc, loc, first, last); err != nil || len(plan.slots) == 0 {
		return err
	}
	from, to := plan.slots[0].StartAt, plan.slots[0].EndAt
	for _, sl := range plan.slots {
		from, to = minTime(from, sl.StartAt), maxTime(to, sl.EndAt)
	}
	// Existing slots start at most a day (MaxSlotMinutes) before a planned one ends.
	existing, err := s.store.ListSlots(ctx, sc.DoctorID, from.Add(-24*time.Hour), to)
	if err != nil {
		return err
	}
	return booking.SlotOverlap(plan.slots, existing)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
