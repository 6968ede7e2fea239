package service

import (
	"context"
	"strings"

	"github.com/slotd/slotd/booking"
)

// SeriesObserver is what an Options.Observer may also implement to count
// a campaign's bookings: each dose series or group request's outcome
// (created, replayed or the problem code) and, when created, its doses or
// its people.
type SeriesObserver interface {
	SeriesBooked(outcome string, doses int)
	GroupBooked(outcome string, members int)
}

// SeriesBookingRequest asks to book every dose of series SeriesID, dose k
// in SlotIDs[k-1]; Key is the client's Idempotency-Key.
type SeriesBookingRequest struct {
	SeriesID int64
	SlotIDs  []int64
	Key      string
}

// BookSeries books every dose of a series for whom ActFor decided, in one
// transaction, all or nothing (Store.BookSeries): a retry with the same key
// answers the booking as it is now with Replayed set. A series does not
// queue in the slots' lanes: it is one transaction of its own that takes
// the slots' locks in id order, and the gates learn what it took.
func (s *Service) BookSeries(ctx context.Context, a booking.Acting, req SeriesBookingRequest) (res booking.SeriesResult, err error) {
	defer func() { s.observeSeries(res, err) }()
	if !a.Staff {
		// A series is no rush's hot path: one read refuses a departed
		// patient before any slot is locked (ActFor checked staff's).
		if err := s.present(ctx, a.PatientID); err != nil {
			return booking.SeriesResult{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ik := inflightKey{a.PatientID, req.Key}
	s.mu.Lock()
	if _, busy := s.inflight[ik]; busy {
		s.mu.Unlock()
		return booking.SeriesResult{}, booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")
	}
	s.inflight[ik] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}()
	r := booking.SeriesRequest{PatientID: a.PatientID, SeriesID: req.SeriesID, SlotIDs: req.SlotIDs, IdempotencyKey: req.Key,
		Fingerprint: booking.SeriesFingerprint(req.SeriesID, req.SlotIDs), Actor: booking.ActorOf(ctx), Staff: a.Staff}
	leave, err := s.campaigns.enter(ctx)
	if err != nil {
		return booking.SeriesResult{}, err
	}
	defer leave()
	since := s.gates.epoch()
	res, err = s.store.BookSeries(ctx, r, s.now())
	if err != nil {
		err = s.storeErr(ctx, err)
		if e, ok := err.(*booking.Error); ok && e.Code == booking.CodeSlotFull && e.SlotID != 0 {
			s.gates.markFull(e.SlotID, s.now(), since)
		}
		return booking.SeriesResult{}, err
	}
	if !res.Replayed {
		for _, ap := range res.Booking.Appointments {
			s.slotChanged(ap.SlotID, ap.DoctorID)
		}
	}
	return res, nil
}

// DoseSeries lists the dose series, one page at a time.
func (s *Service) DoseSeries(ctx context.Context, p booking.Page) ([]booking.DoseSeries, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.DoseSeries, error) { return s.store.ListDoseSeries(ctx, p) })
}

// CreateDoseSeries adds a dose series (staff), as CheckDoseSeries allows.
func (s *Service) CreateDoseSeries(ctx context.Context, ds booking.DoseSeries) (booking.DoseSeries, error) {
	ds.Name = strings.TrimSpace(ds.Name)
	if err := booking.CheckDoseSeries(ds); err != nil {
		return booking.DoseSeries{}, err
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.DoseSeries, error) {
		return s.store.CreateDoseSeries(ctx, ds, s.now())
	})
}

// observeSeries counts a series booking's outcome.
func (s *Service) observeSeries(res booking.SeriesResult, err error) {
	o, ok := s.observer.(SeriesObserver)
	if !ok {
		return
	}
	switch {
	case err != nil:
		o.SeriesBooked(string(booking.ErrorCode(err)), 0)
	case res.Replayed:
		o.SeriesBooked("replayed", 0)
	default:
		o.SeriesBooked("created", len(res.Booking.Appointments))
	}
}
