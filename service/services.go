package service

import (
	"context"
	"slices"
	"time"

	"github.com/slotd/slotd/booking"
)

// Services (visit types) and their visits (booking/visit.go).

// Services lists services by id, one page at a time.
func (s *Service) Services(ctx context.Context, f booking.ServiceFilter, p booking.Page) ([]booking.Service, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Service, error) { return s.store.ListServices(ctx, f, p) })
}

// GetService reads one service.
func (s *Service) GetService(ctx context.Context, id int64) (booking.Service, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Service, error) { return s.store.GetService(ctx, id) })
}

// CreateService adds a service. An admin limited to sites adds one
// offered by doctors of its sites only (serviceOnSites).
func (s *Service) CreateService(ctx context.Context, v booking.Service) (booking.Service, error) {
	if err := s.serviceOnSites(ctx, v.DoctorIDs); err != nil {
		return booking.Service{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Service, error) { return s.store.CreateService(ctx, v) })
}

// UpdateService changes a service; a withdrawn one takes no new visit,
// the visits booked stay.
func (s *Service) UpdateService(ctx context.Context, id int64, u booking.ServiceUpdate) (booking.Service, error) {
	if caller, err := s.Caller(ctx, booking.ActorOf(ctx)); err != nil {
		return booking.Service{}, err
	} else if booking.SiteLimited(caller) {
		v, err := s.GetService(ctx, id)
		if err != nil {
			return booking.Service{}, err
		}
		doctors := v.DoctorIDs
		if u.DoctorIDs != nil {
			doctors = append(slices.Clone(doctors), *u.DoctorIDs...)
		}
		if err := s.serviceOnSites(ctx, doctors); err != nil {
			return booking.Service{}, err
		}
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Service, error) { return s.store.UpdateService(ctx, id, u) })
}

// BookVisitFor books a visit of serviceID from slotID for whom ActFor
// decided, with the client's Idempotency-Key, as BookFor books one slot:
// one request per key at a time, the gates of the first slot (a retry of a
// visit made still replays), then one store transaction that locks the
// visit's slots in order and decides all of them at once. It does not go
// through the slot lanes: a lane batches one slot, a visit needs several.
func (s *Service) BookVisitFor(ctx context.Context, a booking.Acting, v booking.Visit, key string) (r booking.BookResult) {
	slotID, serviceID := v.SlotID, v.ServiceID
	start := time.Now()
	ctx, span := tracer().Start(ctx, "booking.BookVisit")
	defer span.End()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ik := inflightKey{a.PatientID, key}
	s.mu.Lock()
	_, busy := s.inflight[ik]
	busy = busy || s.orphans[ik] != nil
	if !busy {
		s.inflight[ik] = struct{}{}
	}
	s.mu.Unlock()
	inUse := booking.BookResult{Err: booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")}
	if busy {
		s.observe(inUse, true, start)
		return inUse
	}
	defer func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}()
	release, ok := s.claimKey(ctx, a.PatientID, key)
	if !ok {
		s.observe(inUse, true, start)
		return inUse
	}
	defer release()

	fp := booking.VisitFingerprint(slotID, serviceID)
	if g := s.gates.check(ctx, slotID, s.now()); g != nil {
		r, gated := s.refuseOrReplay(ctx, booking.BookRequest{PatientID: a.PatientID, IdempotencyKey: key, Fingerprint: fp, SlotID: slotID}, g)
		s.observe(r, gated, start)
		return r
	}
	r, err := s.store.BookVisit(ctx, booking.VisitRequest{PatientID: a.PatientID, ServiceID: serviceID, SlotID: slotID,
		IdempotencyKey: key, Fingerprint: fp, Staff: a.Staff, Admission: s.admission(a, a.PatientID)}, s.now())
	switch {
	case err != nil:
		r = booking.BookResult{Err: s.storeErr(ctx, err)}
	case r.Err == nil && !r.Replayed:
		s.refused.booked(a.PatientID)
		s.changed(r.Appointment)
	}
	if span.IsRecording() {
		span.SetAttributes(AttrSlotID.Int64(slotID), AttrOutcome.String(outcomeOf(r)))
	}
	s.observe(r, false, start)
	s.observeEligibility(r.Err)
	return r
}

// serviceOnSites refuses a limited admin a service that is not of its
// sites: one offered by no doctor is the whole clinic's (403, as
// RunsClinic), one with a doctor of another site is not found.
func (s *Service) serviceOnSites(ctx context.Context, doctorIDs []int64) error {
	caller, err := s.Caller(ctx, booking.ActorOf(ctx))
	if err != nil || !booking.SiteLimited(caller) {
		return err
	}
	switch doctorIDs = slices.Compact(slices.Sorted(slices.Values(doctorIDs))); {
	case len(doctorIDs) == 0:
		return booking.ClinicWideRefusal()
	case len(doctorIDs) > 2*booking.MaxServiceDoctors: // before and after an update
		return booking.Errorf(booking.CodeInvalidRequest, "a service lists at most %d doctors", booking.MaxServiceDoctors)
	}
	for _, id := range doctorIDs {
		if err := s.onSite(ctx, caller, booking.SiteRef{DoctorID: id}); err != nil {
			return err
		}
	}
	return nil
}
