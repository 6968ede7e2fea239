package booking

import (
	"context"
	"time"
)

// The Service's changes of issue 15: editing, policies, closures. Like the
// others each bounds its store calls, classifies errors and tells the
// gates and watchers what changed.

// UpdateDepartment renames a department.
func (s *Service) UpdateDepartment(ctx context.Context, d Department) (Department, error) {
	return bounded(s, ctx, func(ctx context.Context) (Department, error) { return s.store.UpdateDepartment(ctx, d) })
}

// UpdateDoctor changes a doctor. A deactivated doctor is hidden from
// listings and gets no new slots; existing appointments stay (staff cancel
// them explicitly, or suspend the period).
func (s *Service) UpdateDoctor(ctx context.Context, id int64, u DoctorUpdate) (Doctor, error) {
	d, err := bounded(s, ctx, func(ctx context.Context) (Doctor, error) { return s.store.UpdateDoctor(ctx, id, u) })
	if err == nil {
		s.changed(Appointment{DoctorID: d.ID})
	}
	return d, err
}

// UpdatePatient changes a patient's name, contact details or activity.
// A new phone is stored in E.164, as CreatePatient stores it.
func (s *Service) UpdatePatient(ctx context.Context, id int64, u PatientUpdate) (Patient, error) {
	if u.Phone != nil && *u.Phone != "" {
		p := s.NormalizePhone(*u.Phone)
		if p == "" {
			return Patient{}, Errorf(CodeInvalidRequest, "phone must be a telephone number")
		}
		u.Phone = &p
	}
	return bounded(s, ctx, func(ctx context.Context) (Patient, error) { return s.store.UpdatePatient(ctx, id, u) })
}

// ClinicPolicy returns the clinic's default policy.
func (s *Service) ClinicPolicy(ctx context.Context) (Policy, error) {
	return bounded(s, ctx, func(ctx context.Context) (Policy, error) { return s.store.ClinicPolicy(ctx) })
}

// SetClinicPolicy replaces the clinic's default policy.
func (s *Service) SetClinicPolicy(ctx context.Context, p Policy) (Policy, error) {
	if err := p.Validate(); err != nil {
		return Policy{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (Policy, error) { return s.store.SetClinicPolicy(ctx, p) })
}

// ListSuspensions lists suspensions and closures, newest first.
func (s *Service) ListSuspensions(ctx context.Context, standing bool) ([]Suspension, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]Suspension, error) { return s.store.ListSuspensions(ctx, standing) })
}

// LiftSuspension lifts a suspension or closure and reopens the slots it
// closed. The gates forget every slot: which ones reopened is the
// store's to know, and a lift is rare.
func (s *Service) LiftSuspension(ctx context.Context, id int64) (LiftResult, error) {
	res, err := bounded(s, ctx, func(ctx context.Context) (LiftResult, error) { return s.store.LiftSuspension(ctx, id, s.now()) })
	if err == nil {
		s.gates.forgetAll()
		s.changedScope(ctx, res.Suspension)
	}
	return res, err
}

// changedScope tells the watchers of every doctor a suspension concerns.
func (s *Service) changedScope(ctx context.Context, sus Suspension) {
	if sus.Scope == ScopeDoctor || sus.Scope == "" {
		s.changed(Appointment{DoctorID: sus.DoctorID})
		return
	}
	dept := int64(0)
	if sus.Scope == ScopeDepartment {
		dept = sus.DepartmentID
	}
	ds, err := bounded(s, ctx, func(ctx context.Context) ([]Doctor, error) { return s.store.ListDoctors(ctx, dept) })
	if err != nil {
		return // the list caches expire on their own
	}
	for _, d := range ds {
		s.changed(Appointment{DoctorID: d.ID})
	}
}

// UpdateSchedule edits a schedule (pattern, end date, policy) and
// regenerates its future: the slots from now on that no appointment ever
// named are deleted and generated again from the new pattern; slots with
// appointments are never changed behind a patient's back. It reports how
// many slots it deleted and created.
func (s *Service) UpdateSchedule(ctx context.Context, sc Schedule) (Schedule, int, int, error) {
	if err := s.planner.Normalize(&sc); err != nil {
		return sc, 0, 0, err
	}
	if err := CheckScheduleWaitlist(sc); err != nil {
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
	defer s.changed(Appointment{DoctorID: sc.DoctorID})
	loc, ins, err := s.generation(ctx, sc.DoctorID)
	if err != nil || ins == nil {
		return sc, deleted, 0, s.storeErr(ctx, err)
	}
	first, last, ok := s.window(sc, loc)
	if !ok {
		return sc, deleted, 0, nil
	}
	created, _, err := s.planner.Generate(ctx, ins, sc, loc, first, last)
	return sc, deleted, created, s.storeErr(ctx, err)
}

// window is the schedule's generation window at now, ended by its
// EndDate; ok is false when nothing is left of it.
func (s *Service) window(sc Schedule, loc *time.Location) (first, last time.Time, ok bool) {
	first, last = s.planner.Window(sc, loc, s.now())
	return clip(sc, first, last)
}

// clip ends [first, last] (UTC midnights of civil dates) at sc's EndDate.
func clip(sc Schedule, first, last time.Time) (time.Time, time.Time, bool) {
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
func (s *Service) generation(ctx context.Context, doctorID int64) (*time.Location, SlotInserter, error) {
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
	ins      SlotInserter
	closures []Suspension
	dept     int64
}

func (c closedSkipper) InsertSlots(ctx context.Context, slots []Slot) (int, error) {
	return c.ins.InsertSlots(ctx, Unclosed(slots, c.closures, c.dept))
}

// overlapsExisting plans sc's slots over its window and refuses them when
// they overlap the doctor's existing slots (SlotOverlap); the constraint
// slots_no_overlap stays the last line for a slot added meanwhile.
func (s *Service) overlapsExisting(ctx context.Context, sc Schedule, loc *time.Location) error {
	first, last, ok := s.window(sc, loc)
	if !ok {
		return nil
	}
	var plan slotCollector
	if _, _, err := s.planner.Generate(ctx, &plan, sc, loc, first, last); err != nil || len(plan.slots) == 0 {
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
	return SlotOverlap(plan.slots, existing)
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
