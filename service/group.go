package service

import (
	"context"
	"strconv"

	"github.com/slotd/slotd/booking"
)

// GroupBookingRequest asks for one place of SlotID for each of
// PatientIDs (distinct); Key is the client's Idempotency-Key.
type GroupBookingRequest struct {
	SlotID     int64
	PatientIDs []int64
	Key        string
	// Invitations are the people's invitation codes, in PatientIDs' order
	// (booking.Group.Invitations).
	Invitations []string
}

// GroupResult answers a group booking: each person's appointment, in the
// order asked, Replayed for a retry of one made earlier with the key.
type GroupResult struct {
	Appointments []booking.Appointment
	Replayed     bool
}

// BookGroup books one place of a slot for each person of the request, for
// caller as ActFor allows for each (a patient: themselves and the people
// their account manages), all or nothing on consecutive numbers
// (Store.BookGroup). Like a series it takes no lane: it is one
// transaction of its own.
func (s *Service) BookGroup(ctx context.Context, caller booking.Actor, req GroupBookingRequest) (res GroupResult, err error) {
	defer func() { s.observeGroup(res, err) }()
	staff := false
	var owner int64
	if caller.Role == booking.RolePatient {
		// A departed account books for nobody, whoever it names.
		self, _ := strconv.ParseInt(caller.ID, 10, 64)
		if err := s.present(ctx, self); err != nil {
			return GroupResult{}, err
		}
	}
	for _, p := range req.PatientIDs {
		a, err := s.ActFor(ctx, caller, p)
		if err != nil {
			return GroupResult{}, err
		}
		if !a.Staff {
			if err := s.present(ctx, a.PatientID); err != nil {
				return GroupResult{}, err
			}
		}
		staff = a.Staff
		if owner == 0 {
			owner = a.PatientID
		}
	}
	if staff {
		if err := s.onSite(ctx, caller, booking.SiteRef{SlotID: req.SlotID}); err != nil {
			return GroupResult{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ik := inflightKey{owner, booking.GroupKey(req.Key)}
	s.mu.Lock()
	if _, busy := s.inflight[ik]; busy {
		s.mu.Unlock()
		return GroupResult{}, booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")
	}
	s.inflight[ik] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}()
	leave, err := s.campaigns.enter(ctx)
	if err != nil {
		return GroupResult{}, err
	}
	defer leave()
	invitations := make([]string, len(req.Invitations))
	for k, c := range req.Invitations {
		invitations[k] = booking.NormalizeInvitation(c)
	}
	reqs := booking.Group{SlotID: req.SlotID, PatientIDs: req.PatientIDs, Key: req.Key, Actor: booking.ActorOf(ctx), Staff: staff,
		Invitations: invitations}.Requests()
	out, err := s.store.BookGroup(ctx, req.SlotID, reqs, s.now())
	if err != nil {
		return GroupResult{}, s.storeErr(ctx, err)
	}
	res.Replayed = true
	for _, r := range out {
		if r.Err != nil {
			return GroupResult{}, r.Err
		}
		res.Appointments = append(res.Appointments, r.Appointment)
		res.Replayed = res.Replayed && r.Replayed
	}
	if !res.Replayed {
		s.slotChanged(req.SlotID, res.Appointments[0].DoctorID)
	}
	return res, nil
}

// observeGroup counts a group booking's outcome.
func (s *Service) observeGroup(res GroupResult, err error) {
	o, ok := s.observer.(SeriesObserver)
	if !ok {
		return
	}
	switch {
	case err != nil:
		o.GroupBooked(string(booking.ErrorCode(err)), 0)
		s.observeEligibility(err)
	case res.Replayed:
		o.GroupBooked("replayed", 0)
	default:
		o.GroupBooked("created", len(res.Appointments))
	}
}
