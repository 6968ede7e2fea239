package service

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/booking"
)

// Waiting rooms (docs/clinic.md, "Waiting rooms"): staff announce an
// opening; people join its queue; RunWaitingRooms draws the pre-queue at
// the opening and admits from the front at the rate the booking engine
// answers, within the places nobody admitted holds, pausing while the lanes
// are deep, so that the rush reaches the lanes at a pace they take without
// shedding.

// WaitingRoomOptions tune the waiting rooms.
type WaitingRoomOptions struct {
	// Tokens sign the admissions (a key from
	// auth.Signer.DeriveKey(booking.AdmissionKeyPurpose)); without a key no
	// opening is announced.
	Tokens booking.AdmissionTokens
	// TokenTTL is an admission token's life (booking.DefaultAdmissionTTL).
	TokenTTL time.Duration
	// AdmitPerSecond is the least admission rate while the lanes have room
	// (default 20 a second); when the engine answers more, admission
	// follows it.
	AdmitPerSecond int
	// PlaceStreams bounds the open streams of queue places
	// (WatchOpeningPlace; default MaxPlaceStreams).
	PlaceStreams int
}

// WaitingRoomObserver is what an Options.Observer may also implement to
// count the waiting rooms (cmd/slotd's metrics do).
type WaitingRoomObserver interface {
	// OpeningJoined counts one join by outcome: "created", "existing" (a
	// retry, which changes nothing) or a problem code.
	OpeningJoined(outcome string)
	// OpeningAdmitted counts n people admitted at rate (a second).
	OpeningAdmitted(n int, rate float64)
}

// waitingRooms is the Service's admission state: the bookings answered
// since the last tick and the rate it last admitted at.
type waitingRooms struct {
	opts     WaitingRoomOptions
	answered atomic.Int64

	mu   sync.Mutex
	last time.Time
	rate float64
}

func newWaitingRooms(opts WaitingRoomOptions) *waitingRooms {
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = booking.DefaultAdmissionTTL
	}
	if opts.AdmitPerSecond <= 0 {
		opts.AdmitPerSecond = 20
	}
	return &waitingRooms{opts: opts, rate: float64(opts.AdmitPerSecond)}
}

// currentRate is the rate of the last admission tick (a second).
func (w *waitingRooms) currentRate() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rate
}

// AdmissionBudget is how many people the waiting rooms may admit now,
// all openings together: none while the lanes hold more than half of what
// one lane takes before it sheds (MaxQueue), else what the engine answered
// since the last tick, at least AdmitPerSecond, and never more than the
// lanes' room to that half.
func (s *Service) AdmissionBudget() int {
	w := s.waiting
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	dt := now.Sub(w.last)
	if w.last.IsZero() || dt > time.Second {
		dt = booking.AdmitTick
	}
	w.last = now
	answered := float64(w.answered.Swap(0))
	room := math.MaxInt
	if s.lanes != nil {
		room = s.lanes.opts.MaxQueue/2 - s.lanes.QueueDepth()
	}
	if room <= 0 {
		w.rate = 0
		return 0
	}
	w.rate = max(float64(w.opts.AdmitPerSecond), answered/dt.Seconds())
	return min(room, int(math.Ceil(w.rate*dt.Seconds())))
}

// AnnounceOpening announces the opening of scheduleID's slots at opensAt
// with a fresh seed.
func (s *Service) AnnounceOpening(ctx context.Context, scheduleID int64, opensAt time.Time) (booking.Opening, error) {
	if !s.waiting.opts.Tokens.Valid() {
		return booking.Opening{}, booking.Errorf(booking.CodeConflict, "this server has no key to sign admissions")
	}
	if err := s.onSites(ctx, booking.SiteRef{ScheduleID: scheduleID}); err != nil {
		return booking.Opening{}, err
	}
	seed, err := NewSeed()
	if err != nil {
		return booking.Opening{}, err
	}
	o := booking.Opening{ScheduleID: scheduleID, OpensAt: opensAt, Seed: seed}
	if err := o.Validate(s.now()); err != nil {
		return booking.Opening{}, err
	}
	o, err = bounded(s, ctx, func(ctx context.Context) (booking.Opening, error) {
		return s.store.CreateOpening(ctx, o, s.now())
	})
	if err == nil {
		s.openingStats.track(o)
	}
	return o, err
}

// Opening returns an announced opening.
func (s *Service) Opening(ctx context.Context, id int64) (booking.Opening, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Opening, error) { return s.store.GetOpening(ctx, id) })
}

// Openings lists the openings after afterID, by id.
func (s *Service) Openings(ctx context.Context, afterID int64, limit int) ([]booking.Opening, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Opening, error) {
		return s.store.ListOpenings(ctx, afterID, limit)
	})
}

// JoinOpening takes a place for patientID in the opening's queue (a retry
// returns the first place, with existed) and answers it as OpeningPlace does.
func (s *Service) JoinOpening(ctx context.Context, openingID, patientID int64) (p booking.OpeningPlace, existed bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	e, o, existed, err := s.store.JoinOpening(ctx, openingID, patientID, s.now())
	if obs, ok := s.observer.(WaitingRoomObserver); ok {
		switch {
		case err != nil:
			obs.OpeningJoined(string(booking.ErrorCode(err)))
		case existed:
			obs.OpeningJoined("existing")
		default:
			obs.OpeningJoined("created")
		}
	}
	if err != nil {
		return booking.OpeningPlace{}, false, s.storeErr(ctx, err)
	}
	return s.place(o, e), existed, nil
}

// OpeningPlace is patientID's place in the opening's queue: position,
// people ahead, expected wait and, while admitted, an admission token that
// expires with the admission (asking again does not renew it).
func (s *Service) OpeningPlace(ctx context.Context, openingID, patientID int64) (booking.OpeningPlace, error) {
	type both struct {
		e booking.OpeningEntry
		o booking.Opening
	}
	b, err := bounded(s, ctx, func(ctx context.Context) (both, error) {
		e, o, err := s.store.OpeningEntry(ctx, openingID, patientID)
		return both{e, o}, err
	})
	if err != nil {
		return booking.OpeningPlace{}, err
	}
	return s.place(b.o, b.e), nil
}

func (s *Service) place(o booking.Opening, e booking.OpeningEntry) booking.OpeningPlace {
	now := s.now()
	ttl := s.waiting.opts.TokenTTL
	p := booking.PlaceOf(o, e, s.waiting.currentRate(), now).Expire(e, ttl, now)
	if p.Admitted {
		exp := e.AdmissionExpires(ttl)
		p.Token = s.waiting.opts.Tokens.Token(o.ID, e.PatientID, exp)
		p.TokenExpiresAt = &exp
	}
	return p
}

// AdmitDue draws the openings whose time has come and admits from their
// queues within AdmissionBudget, shared evenly, and within each opening's
// places that nobody admitted holds (booking.Opening.Admit); RunWaitingRooms calls it
// every booking.AdmitTick. Instances may all run it: the store draws once
// and admits at most once per tick.
func (s *Service) AdmitDue(ctx context.Context) error {
	ids, err := bounded(s, ctx, func(ctx context.Context) ([]int64, error) { return s.store.OpeningsDue(ctx, s.now()) })
	if err != nil || len(ids) == 0 {
		return err
	}
	budget := s.AdmissionBudget()
	share := (budget + len(ids) - 1) / len(ids)
	for _, id := range ids {
		o, err := bounded(s, ctx, func(ctx context.Context) (booking.Opening, error) {
			o, _, err := s.store.DrawOpening(ctx, id, s.now())
			return o, err
		})
		if err != nil {
			return err
		}
		s.openingStats.track(o)
		before := o.AdmittedThrough
		if o, err = bounded(s, ctx, func(ctx context.Context) (booking.Opening, error) {
			return s.store.AdmitOpening(ctx, booking.AdmitRequest{OpeningID: id, Budget: share, TTL: s.waiting.opts.TokenTTL, Now: s.now()})
		}); err != nil {
			return err
		}
		if obs, ok := s.observer.(WaitingRoomObserver); ok && o.AdmittedThrough > before {
			obs.OpeningAdmitted(o.AdmittedThrough-before, s.waiting.currentRate())
		}
	}
	return nil
}

// RunWaitingRooms runs AdmitDue every booking.AdmitTick until ctx ends.
func (s *Service) RunWaitingRooms(ctx context.Context) {
	t := time.NewTicker(booking.AdmitTick)
	defer t.Stop()
	for {
		_ = s.AdmitDue(ctx) // a failed tick is retried at the next
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
