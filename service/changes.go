package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// The Service's changes other than booking and cancelling: the catalog,
// schedules and their slots, payments, staff transitions, suspensions,
// expiry, reconciliation and the preparation of rounds. Each bounds its
// store calls by the service's timeout, classifies a timeout as
// ErrUnavailable, and tells the gates and the watchers (list caches, the
// dashboard) what it changed, so that no front end has to.

// ReconcileBudget bounds a reconciliation: a grouped scan of every slot,
// longer than one ordinary store call may take.
const ReconcileBudget = 25 * time.Second

// bounded runs fn under the service's timeout and classifies its error.
func bounded[T any](s *Service, ctx context.Context, fn func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := fn(ctx)
	return v, s.storeErr(ctx, err)
}

// CreateDepartment adds a department.
func (s *Service) CreateDepartment(ctx context.Context, d booking.Department) (booking.Department, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Department, error) { return s.store.CreateDepartment(ctx, d) })
}

// CreateDoctor adds a doctor.
func (s *Service) CreateDoctor(ctx context.Context, d booking.Doctor) (booking.Doctor, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Doctor, error) { return s.store.CreateDoctor(ctx, d) })
}

// CreatePatient adds a patient.
func (s *Service) CreatePatient(ctx context.Context, p booking.Patient) (booking.Patient, error) {
	// Stored in E.164, so that a look-up of the same number typed in any
	// format finds it.
	if p.Phone != "" {
		if p.Phone = s.NormalizePhone(p.Phone); p.Phone == "" {
			return booking.Patient{}, booking.Errorf(booking.CodeInvalidRequest, "phone must be a telephone number")
		}
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Patient, error) { return s.store.CreatePatient(ctx, p) })
}

// CreateSlot adds one slot.
func (s *Service) CreateSlot(ctx context.Context, sl booking.Slot) (booking.Slot, error) {
	sl, err := bounded(s, ctx, func(ctx context.Context) (booking.Slot, error) { return s.store.CreateSlot(ctx, sl) })
	if err == nil {
		s.changed(booking.Appointment{SlotID: sl.ID, DoctorID: sl.DoctorID})
	}
	return sl, err
}

// UpdateSlot changes a slot's capacity or status.
func (s *Service) UpdateSlot(ctx context.Context, id int64, u booking.SlotUpdate) (booking.Slot, error) {
	sl, err := bounded(s, ctx, func(ctx context.Context) (booking.Slot, error) { return s.store.UpdateSlot(ctx, id, u) })
	if err == nil {
		s.slotChanged(sl.ID, sl.DoctorID)
	}
	return sl, err
}

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
		ds, err := s.store.ListDoctors(ctx, 0)
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

// ConfirmPayment records a provider's payment (received now) for a HELD
// appointment; see Store.ConfirmPayment. The caller has authenticated the
// provider (auth.VerifyPayment).
func (s *Service) ConfirmPayment(ctx context.Context, p booking.Payment) (booking.PaymentResult, error) {
	now := s.now()
	if p.ReceivedAt.IsZero() {
		p.ReceivedAt = now
	}
	res, err := bounded(s, ctx, func(ctx context.Context) (booking.PaymentResult, error) { return s.store.ConfirmPayment(ctx, p, now) })
	switch {
	case err != nil && res.Appointment.Status == booking.StatusExpired:
		// A late payment expires the hold it came too late for (if the
		// expiry job had not yet): its place is free again.
		s.released(res.Appointment)
	case err == nil && !res.Duplicate:
		// HELD became BOOKED: the place stays taken, but what this
		// instance remembers of the slot is stale.
		s.slotChanged(res.Appointment.SlotID, res.Appointment.DoctorID)
	}
	return res, err
}

// Transition moves an appointment to COMPLETED or NO_SHOW for staff;
// repeating it changes nothing.
func (s *Service) Transition(ctx context.Context, appointmentID int64, to booking.Status) (booking.Appointment, error) {
	a, err := bounded(s, ctx, func(ctx context.Context) (booking.Appointment, error) {
		return s.store.Transition(ctx, appointmentID, to, s.now())
	})
	if err == nil {
		s.slotChanged(a.SlotID, a.DoctorID) // a final state holds no place
	}
	return a, err
}

// Suspend closes a doctor's slots in a period and cancels their active
// appointments; repeating it changes nothing. The gates reload the closed
// slots, so that this instance neither keeps them marked full nor lets them
// look open (other instances notice within their gates' TTL; the database
// refuses bookings of closed slots anyway).
func (s *Service) Suspend(ctx context.Context, sus booking.Suspension) (booking.SuspensionResult, error) {
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

// ExpireHolds expires up to limit holds past their deadline (see
// Store.ExpireHolds) and releases their places in the gates.
func (s *Service) ExpireHolds(ctx context.Context, limit int) ([]booking.Appointment, error) {
	as, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Appointment, error) {
		return s.store.ExpireHolds(ctx, s.now(), limit)
	})
	offers := 0
	for _, a := range as {
		s.released(a)
		if booking.IsOffer(a) {
			offers++
		}
	}
	s.observeOffers(booking.OfferExpired, offers)
	return as, err
}

// Reconcile reports the invariant breaches of SPEC §6 and, with repair,
// sets counters from the rows (the gates then forget what they knew).
// It may take ReconcileBudget, longer than one ordinary call.
func (s *Service) Reconcile(ctx context.Context, repair bool) (booking.Reconciliation, error) {
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, ReconcileBudget))
	defer cancel()
	rep, err := s.store.Reconcile(ctx, s.now(), repair)
	if err != nil {
		return rep, s.storeErr(ctx, err)
	}
	if len(rep.Repaired) > 0 {
		s.gates.forgetAll()
		s.changed(booking.Appointment{})
	}
	return rep, nil
}

// CreateRoom adds a room resource.
func (s *Service) CreateRoom(ctx context.Context, r booking.Room) (booking.Room, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Room, error) { return s.store.CreateRoom(ctx, r) })
}

// CreateRound adds a DRAFT round.
func (s *Service) CreateRound(ctx context.Context, r booking.Round) (booking.Round, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Round, error) { return s.store.CreateRound(ctx, r) })
}

// SetRoundState opens or closes a round (see Store.SetRoundState).
func (s *Service) SetRoundState(ctx context.Context, id int64, state string) (booking.Round, error) {
	r, err := bounded(s, ctx, func(ctx context.Context) (booking.Round, error) {
		return s.store.SetRoundState(ctx, id, state, s.now())
	})
	if err != nil {
		return r, err
	}
	// The round's slots may have changed with it: the gates reload them.
	if rs, err := bounded(s, ctx, func(ctx context.Context) ([]booking.RoundSlot, error) {
		return s.store.ListRoundSlots(ctx, id, booking.RoomFilter{})
	}); err == nil {
		for _, x := range rs {
			s.slotChanged(x.Slot.ID, x.Slot.DoctorID)
		}
	} else {
		s.gates.forgetAll()
	}
	return r, nil
}

// AddRoundSlots adds one slot per room to a DRAFT round.
func (s *Service) AddRoundSlots(ctx context.Context, roundID int64, roomIDs []int64) ([]booking.Slot, error) {
	sls, err := bounded(s, ctx, func(ctx context.Context) ([]booking.Slot, error) { return s.store.AddRoundSlots(ctx, roundID, roomIDs) })
	for _, sl := range sls {
		s.changed(booking.Appointment{SlotID: sl.ID, DoctorID: sl.DoctorID})
	}
	return sls, err
}
