// Package service is the one door through which anything in slotd changes:
// the Service. Each method bounds its store calls by the service's timeout,
// classifies a timeout or an unreachable database as booking.ErrUnavailable,
// decides who may act for whom, and tells the gates, the peers and the
// watchers (list caches, the dashboard) what it changed, so that no front
// end has to. Its runtime lives here too: the per-slot lanes that decide
// bookings in batches, the in-memory gates in front of the database, the
// recent refusals and coalesced key look-ups, the per-patient limiter, the
// peers between instances and the tracing spans. The rules themselves are
// the pure functions of package booking, which the stores call inside
// their transactions; package schedule turns schedules into slots.
package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
	"github.com/slotd/slotd/phone"
)

// bounded runs fn under the service's timeout and classifies its error.
func bounded[T any](s *Service, ctx context.Context, fn func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, err := fn(ctx)
	return v, s.storeErr(ctx, err)
}

// Options configure a Service.
type Options struct {
	// PhoneRegion is the clinic's default region of phone numbers ("FR",
	// "CN", "VN"): national numbers are read in it (phone.DefaultRegion
	// when empty).
	PhoneRegion string
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
	// Gates tune the in-memory refusals in front of the database.
	Gates GateOptions
	// Observer, when set, is told every booking outcome and batch.
	Observer Observer
	// BookingRate attempts per BookingWindow are allowed per patient, over
	// every front end together (default 5 per 10s); see AttemptBooking.
	BookingRate   int
	BookingWindow time.Duration
	// Limiter replaces the in-process per-patient limiter built from
	// BookingRate and BookingWindow (a limiter shared between instances).
	Limiter booking.Limiter
	// Peers, when set, share known-full marks, cache invalidations and
	// in-flight Idempotency-Keys with the other instances (peers.go).
	Peers booking.Peers
	// Reminders are the offsets before a BOOKED appointment at which a
	// reminder is sent (default DefaultReminders; a schedule may have its
	// own). An empty non-nil slice sends none.
	Reminders []time.Duration
	// Accounts keeps the staff users, their second factors and failed
	// sign-ins (StaffSignIn); the store's when nil and it is one (both
	// stores are).
	Accounts accounts.Store
	// StaffTOTPRequired refuses the sign-in of an admin that has no second
	// factor enrolled (doctors' accounts are not admins).
	StaffTOTPRequired bool
	// MarkRefresh bounds how stale this instance's copy of the revocation
	// marks may be (DefaultMarkRefresh when 0): a sign-out or deactivation
	// made on another instance is refused here within it (marks.go).
	MarkRefresh time.Duration
	// LoginKey is the key under which the pages store a phone's sign-in
	// codes (SigninPhoneKey), so that an erasure deletes them; without it
	// an erasure leaves them to expire (accounts.CodeTTL).
	LoginKey func(phone string) string
	// OnRefusedToken, when set, is told the code of every token Admit
	// refuses (for the metrics).
	OnRefusedToken func(code booking.Code)
	// Payments is the payment provider refunds are asked of; without one
	// every refund fails after its attempts, for staff to settle.
	Payments payments.Provider
	// Currency is the clinic's ISO 4217 code, the currency of every
	// payment and refund (EUR when empty).
	Currency string
	// CheckInCodes sign the appointments' check-in codes (a key from
	// auth.Signer.DeriveKey(booking.CheckInKeyPurpose)); without a key no
	// code is shown and only staff check patients in.
	CheckInCodes booking.CheckInCodes
	// WaitingRoom tunes the openings' waiting rooms (openings.go).
	WaitingRoom WaitingRoomOptions
}

// Booking engines.
const (
	EngineBatched = "batched"
	EngineDirect  = "direct"
)

// Observer receives what the Service decides, for metrics.
type Observer interface {
	// Booked is called once per booking attempt with its outcome ("created",
	// "replayed" or an error code), whether the in-memory gates answered it,
	// and how long it took.
	Booked(outcome string, gated bool, took time.Duration)
	// Batch is called once per store decision with its size and duration.
	Batch(size int, took time.Duration)
}

// Service decides bookings and cancellations on top of a Store.
type Service struct {
	store   booking.Store
	now     func() time.Time
	timeout time.Duration
	lanes   *lanes // nil for the direct engine
	// series is the series' group commit (seriesbatch.go); nil for the
	// direct engine, where each series is a transaction of its own.
	series    *seriesBatcher
	gates     *gates
	keys      *keyLookups
	refused   *recentKeys
	observer  Observer
	limiter   booking.Limiter
	peers     booking.Peers
	region    string
	reminders []time.Duration
	// marks is this instance's copy of the revocation marks; wall stamps
	// and compares them, the clock tokens are minted by (never Options.Now,
	// which tests move).
	marks          *marks
	wall           func() time.Time
	onRefusedToken func(code booking.Code)
	loginKey       func(phone string) string
	checkInCodes   booking.CheckInCodes

	accounts accounts.Store // staff sign-in (staffsignin.go)
	// staffSites remembers the sites of staff callers (staffsites.go).
	staffSites        staffSiteCache
	staffTOTPRequired bool

	payments  payments.Provider // refunds (refunds.go)
	statement lastStatement     // the newest day reconciled against the provider (statement.go)
	currency  string

	mu       sync.Mutex
	inflight map[inflightKey]struct{}
	// campaigns admits the series and group bookings (admission.go).
	campaigns *campaignGate
	// orphans are the bookings whose caller gave up while their lane still
	// held them; each channel closes once the lane has decided it.
	orphans  map[inflightKey]chan struct{}
	watchers []func(Change)

	// rounds decides asynchronous round applications (rounds.go).
	rounds roundProcessor

	// managers remembers which account manages which person (people.go).
	managers managerCache

	// waiting admits the openings' queues (openings.go); openingStats
	// measures their requests (opening_report.go).
	waiting      *waitingRooms
	openingStats openingStats
	summaries    summaries
	// placeStreams holds a token per open stream of a queue place
	// (opening_watch.go).
	placeStreams chan struct{}
}

type inflightKey struct {
	patientID int64
	key       string
}

// Change tells that this instance changed the places of a slot (a booking,
// a cancel, an expiry), for caches to drop what they hold of it.
type Change struct {
	SlotID   int64
	DoctorID int64
}

// NewService returns a Service over store.
func NewService(store booking.Store, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.BookingRate <= 0 {
		opts.BookingRate = booking.DefaultBookingRate
	}
	if opts.BookingWindow <= 0 {
		opts.BookingWindow = booking.DefaultBookingWindow
	}
	if opts.Limiter == nil {
		opts.Limiter = NewRateLimiter(opts.BookingRate, opts.BookingWindow, defaultMaxLimiters)
	}
	if opts.Reminders == nil {
		opts.Reminders = booking.DefaultReminders
	}
	s := &Service{store: store, now: opts.Now, timeout: opts.Timeout, observer: opts.Observer,
		reminders: opts.Reminders, limiter: opts.Limiter, peers: opts.Peers,
		inflight: map[inflightKey]struct{}{}, orphans: map[inflightKey]chan struct{}{}, campaigns: newCampaignGate(), region: opts.PhoneRegion,
		marks: newMarks(opts.MarkRefresh, opts.Timeout), wall: time.Now, onRefusedToken: opts.OnRefusedToken,
		loginKey: opts.LoginKey, checkInCodes: opts.CheckInCodes, waiting: newWaitingRooms(opts.WaitingRoom),
		placeStreams: make(chan struct{}, cmp.Or(max(opts.WaitingRoom.PlaceStreams, 0), MaxPlaceStreams))}
	if s.region == "" {
		s.region = phone.DefaultRegion
	}
	s.accounts, s.staffTOTPRequired = opts.Accounts, opts.StaffTOTPRequired
	s.payments, s.currency = opts.Payments, opts.Currency
	if s.currency == "" {
		s.currency = "EUR"
	}
	if acc, ok := store.(accounts.Store); ok && s.accounts == nil {
		s.accounts = acc
	}
	s.gates = newGates(opts.Gates, s.loadSlot)
	s.refused = newRecentKeys(s.gates.opts.FullTTL)
	s.keys = newKeyLookups(func(ctx context.Context, reqs []booking.BookRequest) ([]booking.Appointment, error) {
		return s.store.FindByKeys(ctx, reqs)
	}, opts.Timeout)
	switch opts.Engine {
	case EngineBatched, "":
		s.lanes = newLanes(opts.Lanes, s.decideLaned)
		s.series = newSeriesBatcher(opts.Lanes.Depth, s.decideSeries)
	case EngineDirect:
	default:
		panic("booking: unknown engine " + opts.Engine)
	}
	return s
}

// NormalizePhone is the one normalization of a phone number: E.164, a
// national number read in the clinic's region; "" when raw is not a phone
// number. Patient creation, sign-in and look-up all use it.
func (s *Service) NormalizePhone(raw string) string { return phone.Normalize(raw, s.region) }

// Reader returns the store the service works on, for reading.
func (s *Service) Reader() booking.Reader { return s.store }

// Timeout is the longest wait for one database call (--db-timeout): the
// front ends bound their reads with it, as the Service bounds its changes.
func (s *Service) Timeout() time.Duration { return s.timeout }

// Now returns the service's clock reading.
func (s *Service) Now() time.Time { return s.now() }

// Watch registers fn to be told of every Change this instance makes. It is
// called synchronously after the change committed; keep it cheap.
func (s *Service) Watch(fn func(Change)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchers = append(s.watchers, fn)
}

func (s *Service) changed(a booking.Appointment) {
	s.tellWatchers(Change{SlotID: a.SlotID, DoctorID: a.DoctorID})
	s.publish(booking.Signal{Kind: booking.SignalChanged, SlotID: a.SlotID, DoctorID: a.DoctorID})
}

func (s *Service) tellWatchers(c Change) {
	s.mu.Lock()
	ws := s.watchers
	s.mu.Unlock()
	for _, fn := range ws {
		fn(c)
	}
}

// released records that a's place was given back by this instance (a
// cancel, an expiry, a final state), so the slot is no longer known full
// and caches drop it.
func (s *Service) released(a booking.Appointment) {
	s.gates.released(a.SlotID)
	if a.ServiceID != 0 {
		// A visit gave back its further slots too (booking/visit.go).
		s.gates.releasedSpan(a.DoctorID, a.StartAt, a.EndAt)
	}
	s.tellWatchers(Change{SlotID: a.SlotID, DoctorID: a.DoctorID})
	s.publish(booking.Signal{Kind: booking.SignalReleased, SlotID: a.SlotID, DoctorID: a.DoctorID})
}

// slotChanged records that this instance changed a slot itself (capacity,
// status, a payment), so the gates reload it and caches drop it.
func (s *Service) slotChanged(slotID, doctorID int64) {
	s.gates.forget(slotID)
	s.tellWatchers(Change{SlotID: slotID, DoctorID: doctorID})
	s.publish(booking.Signal{Kind: booking.SignalForget, SlotID: slotID, DoctorID: doctorID})
}

// loadSlot reads a slot for the gates, bounded by the service's timeout.
func (s *Service) loadSlot(ctx context.Context, slotID int64) (booking.Slot, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.store.GetSlot(ctx, slotID)
}

// storeErr classifies an error of a store call made under ctx (Classify).
func (s *Service) storeErr(ctx context.Context, err error) error { return Classify(ctx, err) }

// Classify turns a timeout or cancellation of a store call made under ctx
// into ErrUnavailable, so that a database that hangs is answered like one
// that is down; the Service and the front ends' reads (through Reader)
// classify with it.
func Classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var e *booking.Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Errorf("%w: %v", booking.ErrUnavailable, err)
	}
	return err
}
