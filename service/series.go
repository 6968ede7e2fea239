package service

import (
	"context"
	"strings"

	"github.com/slotd/slotd/booking"
)

// SeriesObserver is what an Options.Observer may also implement to count
// a campaign's bookings: each dose series, next dose or group request's
// outcome (created, replayed or the problem code) and, when created, its
// doses or its people.
type SeriesObserver interface {
	SeriesBooked(outcome string, doses int)
	NextDoseBooked(outcome string)
	GroupBooked(outcome string, members int)
	// EligibilityRefused counts a request (single, series, group or
	// visit) a campaign's rule (a schedule's or a service's) refused, by
	// its code.
	EligibilityRefused(reason string)
}

// observeEligibility counts err when a campaign's rule refused it.
func (s *Service) observeEligibility(err error) {
	o, ok := s.observer.(SeriesObserver)
	if !ok {
		return
	}
	switch c := booking.ErrorCode(err); c {
	case booking.CodeNotEligible, booking.CodeInvitationRequired, booking.CodePlacesReserved:
		o.EligibilityRefused(string(c))
	}
}

// SeriesBookingRequest asks to book every dose of series SeriesID, dose k
// in SlotIDs[k-1]; Key is the client's Idempotency-Key.
type SeriesBookingRequest struct {
	SeriesID int64
	SlotIDs  []int64
	Key      string
}

// BookSeries books every dose of a series for whom ActFor decided, all or
// nothing: a retry with the same key answers the booking as it is now with
// Replayed set. A series does not queue in the slots' lanes: with the
// batched engine it is decided with the other series of the moment, in
// one transaction that takes all their slots' locks in id order
// (seriesbatch.go, Store.BookSeriesBatch); with the direct engine in one
// of its own (Store.BookSeries). The gates learn what it took.
func (s *Service) BookSeries(ctx context.Context, a booking.Acting, req SeriesBookingRequest) (res booking.SeriesResult, err error) {
	defer func() { s.observeSeries(res, err) }()
	if a.Staff {
		for _, id := range req.SlotIDs {
			if err := s.onSite(ctx, booking.ActorOf(ctx), booking.SiteRef{SlotID: id}); err != nil {
				return booking.SeriesResult{}, err
			}
		}
	}
	r := booking.SeriesRequest{PatientID: a.PatientID, SeriesID: req.SeriesID, SlotIDs: req.SlotIDs, IdempotencyKey: req.Key,
		Fingerprint: booking.SeriesFingerprint(req.SeriesID, req.SlotIDs), Actor: booking.ActorOf(ctx), Staff: a.Staff,
		Invitation: booking.NormalizeInvitation(a.Invitation)}
	if s.series != nil {
		return s.seriesWrite(ctx, a, req.Key, nil, func(ctx context.Context) (booking.SeriesResult, error) {
			return s.series.submit(ctx, r)
		})
	}
	return s.seriesWrite(ctx, a, req.Key, s.campaigns, func(ctx context.Context) (booking.SeriesResult, error) {
		return s.store.BookSeries(ctx, r, s.now())
	})
}

// seriesWrite runs a series' write (a whole series or its next dose) for
// a: a departed patient is refused first, the key is held in flight, the
// write waits its turn among the campaigns' transactions (gate; nil for a
// series the batcher bounds), the gates learn of a slot found full and
// every dose booked changes its slot.
func (s *Service) seriesWrite(ctx context.Context, a booking.Acting, key string, gate *campaignGate, write func(context.Context) (booking.SeriesResult, error)) (booking.SeriesResult, error) {
	if !a.Staff {
		// A series is no rush's hot path: one read refuses a departed
		// patient before any slot is locked (ActFor checked staff's).
		if err := s.present(ctx, a.PatientID); err != nil {
			return booking.SeriesResult{}, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	done, err := s.holdKey(a.PatientID, key)
	if err != nil {
		return booking.SeriesResult{}, err
	}
	defer done()
	if gate != nil {
		leave, err := gate.enter(ctx)
		if err != nil {
			return booking.SeriesResult{}, err
		}
		defer leave()
	}
	since := s.gates.epoch()
	res, err := write(ctx)
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

// holdKey marks (patient, key) in flight until done is called, or
// refuses it as key-in-use while another request holds it.
func (s *Service) holdKey(patientID int64, key string) (done func(), err error) {
	ik := inflightKey{patientID, key}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.inflight[ik]; busy {
		return nil, booking.Errorf(booking.CodeKeyInUse, "a request with this Idempotency-Key is still being processed")
	}
	s.inflight[ik] = struct{}{}
	return func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}, nil
}

// NextDoseRequest asks to book the next dose of series booking BookingID
// in SlotID; Key is the client's Idempotency-Key.
type NextDoseRequest struct {
	BookingID int64
	SlotID    int64
	Key       string
}

// BookNextDose books the next dose of a series booking of whom ActFor
// decided (Store.BookNextDose), inside its window after the dose before:
// a retry with the same key answers the booking as it is now with
// Replayed set. Like a series, it is one transaction of its own.
func (s *Service) BookNextDose(ctx context.Context, a booking.Acting, req NextDoseRequest) (res booking.SeriesResult, err error) {
	defer func() { s.observeNextDose(res, err) }()
	if a.Staff {
		if err := s.onSite(ctx, booking.ActorOf(ctx), booking.SiteRef{SlotID: req.SlotID}); err != nil {
			return booking.SeriesResult{}, err
		}
	}
	r := booking.NextDoseRequest{PatientID: a.PatientID, BookingID: req.BookingID, SlotID: req.SlotID, IdempotencyKey: req.Key,
		Fingerprint: booking.NextDoseFingerprint(req.BookingID, req.SlotID), Actor: booking.ActorOf(ctx), Staff: a.Staff}
	return s.seriesWrite(ctx, a, req.Key, s.campaigns, func(ctx context.Context) (booking.SeriesResult, error) {
		return s.store.BookNextDose(ctx, r, s.now())
	})
}

// AccountSeriesBookings lists the series bookings of an account and the
// people it manages, newest first, each with its doses: where a patient
// finds the booking whose next dose they book.
func (s *Service) AccountSeriesBookings(ctx context.Context, account int64, p booking.Page) ([]booking.SeriesBooking, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.SeriesBooking, error) {
		return s.store.ListAccountSeriesBookings(ctx, account, p)
	})
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
		s.observeEligibility(err)
	case res.Replayed:
		o.SeriesBooked("replayed", 0)
	default:
		o.SeriesBooked("created", len(res.Booking.Appointments))
	}
}

// observeNextDose counts a next dose's outcome.
func (s *Service) observeNextDose(res booking.SeriesResult, err error) {
	o, ok := s.observer.(SeriesObserver)
	if !ok {
		return
	}
	switch {
	case err != nil:
		o.NextDoseBooked(string(booking.ErrorCode(err)))
	case res.Replayed:
		o.NextDoseBooked("replayed")
	default:
		o.NextDoseBooked("created")
	}
}
