package service

import (
	"context"
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

// CreateService adds a service.
func (s *Service) CreateService(ctx context.Context, v booking.Service) (booking.Service, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Service, error) { return s.store.CreateService(ctx, v) })
}

// UpdateService changes a service; a withdrawn one takes no new visit,
// the visits booked stay.
func (s *Service) UpdateService(ctx context.Context, id int64, u booking.ServiceUpdate) (booking.Service, error) {
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
