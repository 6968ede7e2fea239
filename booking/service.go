package booking

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Options configure a Service.
type Options struct {
	// Now is the clock; time.Now when nil. Read once per decision.
	Now func() time.Time
	// Timeout bounds each database call so that a database that does not
	// answer yields ErrUnavailable instead of a hang. Default 5s.
	Timeout time.Duration
	// Engine is EngineBatched (the default: group commit per slot) or
	// EngineDirect (one transaction per request, kept for comparison).
	Engine string
	// Lanes bound the batched engine.
	Lanes LaneOptions
}

// Booking engines.
const (
	EngineBatched = "batched"
	EngineDirect  = "direct"
)

// Service decides bookings and cancellations on top of a Store.
type Service struct {
	store   Store
	now     func() time.Time
	timeout time.Duration

	lanes *lanes // nil for the direct engine

	mu       sync.Mutex
	inflight map[inflightKey]struct{}
}

type inflightKey struct {
	patientID int64
	key       string
}

// NewService returns a Service over store.
func NewService(store Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	s := &Service{store: store, now: opts.Now, timeout: opts.Timeout, inflight: map[inflightKey]struct{}{}}
	switch opts.Engine {
	case EngineBatched, "":
		s.lanes = newLanes(opts.Lanes, s.decide)
	case EngineDirect:
	default:
		panic("booking: unknown engine " + opts.Engine)
	}
	return s
}

// decide runs one store transaction for a batch of requests for one slot,
// bounded by the service's timeout.
func (s *Service) decide(ctx context.Context, slotID int64, reqs []BookRequest) ([]BookResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.store.Book(ctx, slotID, reqs, s.now())
	if err == nil && len(res) != len(reqs) {
		err = fmt.Errorf("store answered %d results for %d requests", len(res), len(reqs))
	}
	return res, s.storeErr(ctx, err)
}

// Store returns the store the service works on.
func (s *Service) Store() Store { return s.store }

// Now returns the service's clock reading.
func (s *Service) Now() time.Time { return s.now() }

// Fingerprint is the canonical form of a booking request body, compared when
// an Idempotency-Key is reused.
func Fingerprint(slotID int64) string { return fmt.Sprintf("slot=%d", slotID) }

// Book takes a place in slotID for patientID. key is the client's
// Idempotency-Key: a retry with the same key and slot returns the original
// appointment with Replayed set; the same key for another slot is refused
// with CodeKeyReused; a retry while the first request is still being decided
// by this instance is refused with CodeKeyInUse (across instances the
// database's unique index makes the later one wait and then replay).
func (s *Service) Book(ctx context.Context, patientID, slotID int64, key string) BookResult {
	ik := inflightKey{patientID, key}
	s.mu.Lock()
	if _, busy := s.inflight[ik]; busy {
		s.mu.Unlock()
		return BookResult{Err: Errorf(CodeKeyInUse, "a request with this Idempotency-Key is still being processed")}
	}
	s.inflight[ik] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.inflight, ik)
		s.mu.Unlock()
	}()

	req := BookRequest{PatientID: patientID, IdempotencyKey: key, Fingerprint: Fingerprint(slotID)}
	if s.lanes != nil {
		// Waiting in a lane is bounded too: a queue behind a stalled database
		// answers 503 rather than hanging. The request may still be decided;
		// a retry with the same key then finds its outcome.
		wctx, cancel := context.WithTimeout(ctx, 2*s.timeout)
		defer cancel()
		r := s.lanes.submit(wctx, slotID, req)
		if r.Err != nil && wctx.Err() != nil && ctx.Err() == nil {
			r.Err = fmt.Errorf("%w: the booking was not decided in time", ErrUnavailable)
		}
		return r
	}
	res, err := s.decide(ctx, slotID, []BookRequest{req})
	if err != nil {
		return BookResult{Err: err}
	}
	return res[0]
}

// QueueDepth returns the number of booking requests waiting in lanes.
func (s *Service) QueueDepth() int {
	if s.lanes == nil {
		return 0
	}
	return s.lanes.QueueDepth()
}

// Cancel cancels an appointment of patientID (any patient's when patientID
// is 0, for staff). Repeating it returns the cancelled appointment unchanged.
func (s *Service) Cancel(ctx context.Context, appointmentID, patientID int64) (Appointment, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	a, err := s.store.Cancel(ctx, appointmentID, patientID, s.now())
	return a, s.storeErr(ctx, err)
}

// Appointment returns one appointment of patientID (any patient's when
// patientID is 0). Another patient's appointment is not found.
func (s *Service) Appointment(ctx context.Context, id, patientID int64) (Appointment, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	a, err := s.store.GetAppointment(ctx, id)
	if err != nil {
		return Appointment{}, s.storeErr(ctx, err)
	}
	if patientID != 0 && a.PatientID != patientID {
		return Appointment{}, NotFound("appointment")
	}
	return a, nil
}

// Appointments lists a patient's appointments, optionally in one state.
func (s *Service) Appointments(ctx context.Context, patientID int64, status Status) ([]Appointment, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	as, err := s.store.ListAppointments(ctx, patientID, status)
	return as, s.storeErr(ctx, err)
}

// storeErr turns a timeout of the service's own deadline into ErrUnavailable
// so that a database that hangs is answered like one that is down.
func (s *Service) storeErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return err
}
