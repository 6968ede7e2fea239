package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// CreateSchedule validates and stores a schedule and generates its slots
// over its booking window in the doctor's zone, reporting how many it
// created. When the generation fails the schedule exists all the same, is
// returned with the error, and GenerateSlots completes it.
func (s *Service) CreateSchedule(ctx context.Context, sc booking.Schedule) (booking.Schedule, int, error) {
	if err := schedule.Normalize(&sc); err != nil {
		return sc, 0, err
	}
	if err := booking.CheckScheduleWaitlist(sc); err != nil {
		return sc, 0, err
	}
	if err := sc.Policy.Validate(); err != nil {
		return sc, 0, err
	}
	if err := s.onSites(ctx, booking.SiteRef{DoctorID: sc.DoctorID}); err != nil {
		return sc, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	loc, ins, err := s.generation(ctx, sc.DoctorID)
	if err != nil {
		return sc, 0, s.storeErr(ctx, err)
	}
	if ins != nil {
		// Report an overlap with the doctor's existing slots instead of
		// storing a schedule whose generation the database would refuse.
		if err := s.overlapsExisting(ctx, sc, loc); err != nil {
			return sc, 0, s.storeErr(ctx, err)
		}
	}
	sc, err = s.store.CreateSchedule(ctx, sc)
	if err != nil || ins == nil {
		return sc, 0, s.storeErr(ctx, err)
	}
	first, last, ok := s.window(sc, loc)
	if !ok {
		return sc, 0, nil
	}
	created, err := s.generateMarked(ctx, ins, sc, loc, first, last)
	s.changed(booking.Appointment{DoctorID: sc.DoctorID})
	return sc, created, s.storeErr(ctx, err)
}

// GenerateSlots (re)generates the slots of every schedule of a doctor for
// the local days first through last (UTC midnights of the civil dates):
// what exists stays, what is missing is added. Each schedule has its own
// deadline, as a long range over several is a bigger job than one call.
func (s *Service) GenerateSlots(ctx context.Context, doctorID int64, first, last time.Time) (created, existing int, err error) {
	type plan struct {
		ss  []booking.Schedule
		loc *time.Location
		ins schedule.SlotInserter
	}
	if err := s.onSites(ctx, booking.SiteRef{DoctorID: doctorID}); err != nil {
		return 0, 0, err
	}
	p, err := bounded(s, ctx, func(ctx context.Context) (plan, error) {
		loc, ins, err := s.generation(ctx, doctorID)
		if err != nil || ins == nil {
			return plan{}, err
		}
		ss, err := s.store.ListSchedules(ctx, doctorID)
		return plan{ss, loc, ins}, err
	})
	if err != nil || p.ins == nil {
		return 0, 0, err
	}
	defer s.changed(booking.Appointment{DoctorID: doctorID})
	for _, sc := range p.ss {
		f, l, ok := clip(sc, first, last)
		if !ok {
			continue
		}
		n, err := bounded(s, ctx, func(ctx context.Context) ([2]int, error) {
			c, e, err := generate(ctx, p.ins, sc, p.loc, f, l)
			return [2]int{c, e}, err
		})
		created, existing = created+n[0], existing+n[1]
		if err != nil {
			return created, existing, err
		}
	}
	return created, existing, nil
}

// ExtendSchedules moves every schedule's slots up to its window at now, in
// its doctor's zone: the days after its GeneratedThrough mark (DueDays),
// the whole window with full. The mark makes a pass with nothing due cost
// two reads (the schedules and the doctors), whatever the number of slots;
// a new day, or the days missed while no instance ran, are generated once.
// One schedule's failure does not stop the others; the errors are joined.
func (s *Service) ExtendSchedules(ctx context.Context, full bool) (int, error) {
	type catalog struct {
		ss []booking.Schedule
		ds []booking.Doctor
	}
	c, err := bounded(s, ctx, func(ctx context.Context) (catalog, error) {
		ss, err := s.store.ListSchedules(ctx, 0)
		if err != nil {
			return catalog{}, err
		}
		ds, err := s.store.ListDoctors(ctx, 0, booking.Page{})
		return catalog{ss, ds}, err
	})
	if err != nil {
		return 0, err
	}
	zones := make(map[int64]*time.Location, len(c.ds))
	for _, d := range c.ds {
		if loc, err := d.Location(); err == nil {
			zones[d.ID] = loc
		}
	}
	type gen struct {
		loc *time.Location
		ins schedule.SlotInserter
	}
	gens := map[int64]gen{}
	created := 0
	var errs []error
	for _, sc := range c.ss {
		if loc, listed := zones[sc.DoctorID]; listed {
			if _, _, ok := s.due(sc, loc, full); !ok {
				continue // nothing due: no store call
			}
		}
		// A schedule not of an active doctor (a room, a deactivated
		// doctor) is decided by its own look-up, as before.
		g, known := gens[sc.DoctorID]
		if !known {
			if g, err = bounded(s, ctx, func(ctx context.Context) (gen, error) {
				loc, ins, err := s.generation(ctx, sc.DoctorID)
				return gen{loc, ins}, err
			}); err != nil {
				errs = append(errs, fmt.Errorf("schedule %d: %w", sc.ID, err))
				continue
			}
			gens[sc.DoctorID] = g
		}
		if g.ins == nil {
			continue // a deactivated doctor gets no new slots
		}
		first, last, ok := s.due(sc, g.loc, full)
		if !ok {
			continue
		}
		c, err := bounded(s, ctx, func(ctx context.Context) (int, error) {
			return s.generateMarked(ctx, g.ins, sc, g.loc, first, last)
		})
		created += c
		if c > 0 {
			s.changed(booking.Appointment{DoctorID: sc.DoctorID})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("schedule %d: %w", sc.ID, err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	return created, errors.Join(errs...)
}

// due is what a pass has to generate of sc at now (DueDays of its window).
func (s *Service) due(sc booking.Schedule, loc *time.Location, full bool) (time.Time, time.Time, bool) {
	first, last, ok := s.window(sc, loc)
	if !ok {
		return first, last, false
	}
	return booking.DueDays(sc, first, last, full)
}

// slotCollector collects the slots a generation would insert.
type slotCollector struct{ slots []booking.Slot }

func (c *slotCollector) InsertSlots(_ context.Context, s []booking.Slot) (int, error) {
	c.slots = append(c.slots, s...)
	return len(s), nil
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
	if err := s.onSites(ctx, booking.SiteRef{ScheduleID: sc.ID}); err != nil {
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

// generateMarked generates sc's days [first, last] and then records last
// as its mark. The mark is written only after the slots committed, so a
// crash between the two makes the next pass redo those days (generation
// is idempotent), never skip them.
func (s *Service) generateMarked(ctx context.Context, ins schedule.SlotInserter, sc booking.Schedule, loc *time.Location, first, last time.Time) (int, error) {
	created, _, err := generate(ctx, ins, sc, loc, first, last)
	if err != nil {
		return created, err
	}
	return created, s.store.MarkGenerated(ctx, sc.ID, last.Format(time.DateOnly))
}

// WindowDays is schedule.Window at now in loc, its days as UTC midnights
// (how the Service passes civil dates).
func WindowDays(sc booking.Schedule, loc *time.Location, now time.Time) (first, last time.Time) {
	from, to := schedule.Window(sc, loc, now)
	return from.Midnight(), to.Midnight()
}

// generate is schedule.Apply for the local days first through last (UTC
// midnights), counting the slots created and those that existed.
func generate(ctx context.Context, ins schedule.SlotInserter, sc booking.Schedule, loc *time.Location, first, last time.Time) (created, existing int, err error) {
	return schedule.Apply(ctx, ins, schedule.Generation{Schedule: sc, Location: loc, From: schedule.DateOf(first, time.UTC), To: schedule.DateOf(last, time.UTC)})
}
