package service

import (
	"context"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
)

// CreateRoom adds a room resource.
func (s *Service) CreateRoom(ctx context.Context, r booking.Room) (booking.Room, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Room, error) { return s.store.CreateRoom(ctx, r) })
}

// CreateRound adds a DRAFT round. A lottery round without a seed gets a
// fresh one from crypto/rand: its commitment is public from now on.
func (s *Service) CreateRound(ctx context.Context, r booking.Round) (booking.Round, error) {
	if r.Lottery != nil && len(r.Lottery.Seed) == 0 {
		l := *r.Lottery
		seed, err := NewSeed()
		if err != nil {
			return booking.Round{}, err
		}
		l.Seed, r.Lottery = seed, &l
	}
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

// Asynchronous applications to rounds (docs/contracts/rounds.md, "processor").
//
// An application answered with 202 is first made durable as a PENDING row
// (Store.SubmitApplication) and only then acknowledged; a processor decides
// the pending rows of each round in arrival order through DecidePending,
// which writes the outcome in the same transaction as the booking. So an
// outcome is never reported before it is stored, a crash between the two
// loses nothing (the row stays PENDING and the sweep finds it), and two
// instances never decide one round out of order (DecidePending holds the
// round's lock).

// DecideBatch is how many pending applications one DecidePending call
// decides: large enough that a rush is drained in few transactions, small
// enough that one transaction never holds the round's lock for long.
const DecideBatch = 100

// DefaultSweepInterval is how often RunRoundProcessor looks for rounds with
// pending applications that no goroutine of this instance is deciding:
// submitted on another instance, or before a crash.
const DefaultSweepInterval = 2 * time.Second

// roundProcessor is the Service's state for deciding applications: at most
// one goroutine per round with pending work, so that this instance never
// competes with itself for a round's lock.
type roundProcessor struct {
	mu sync.Mutex
	// base is the context of RunRoundProcessor; nil before it runs, when
	// goroutines woken by submissions run under context.Background().
	base    context.Context
	stopped bool
	// running marks rounds with a goroutine; again asks it for one more
	// pass because an application arrived while it was deciding.
	running map[int64]bool
	again   map[int64]bool
	wg      sync.WaitGroup
	// resources remembers each slot's resource (it never changes), so that
	// telling the watchers about an allocation costs no read after the first.
	resources map[int64]int64
}

// ApplicationRequest is PatientID's application for SlotID of RoundID;
// Key is the client's Idempotency-Key.
type ApplicationRequest struct {
	RoundID   int64
	PatientID int64
	SlotID    int64
	Key       string
}

// SubmitApplication stores req's application as PENDING, to be decided in
// arrival order, and wakes the round's processor. The same patient and key
// return the same application with existed set (pending, or decided with
// its outcome); another slot under the same key is CodeKeyReused.
//
// A round that does not accept applications yet (DRAFT, before OpensAt)
// refuses at once with CodeNotOpenYet: no application can exist before the
// opening, so nothing is stored and a retry with the same key after the
// opening is a fresh application, as with synchronous booking. A closed
// round refuses with CodeSlotClosed, except for a retry of an application
// that was allocated: the store then returns the original.
func (s *Service) SubmitApplication(ctx context.Context, req ApplicationRequest) (booking.Application, bool, error) {
	roundID, patientID, slotID, key := req.RoundID, req.PatientID, req.SlotID, req.Key
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	now := s.now()
	round, err := s.store.GetRound(ctx, roundID)
	if err != nil {
		return booking.Application{}, false, s.storeErr(ctx, err)
	}
	if ref := round.Refusal(now, slotID); ref != nil {
		if ref.Code != booking.CodeSlotClosed {
			return booking.Application{}, false, ref
		}
		// After the close only a retry may get an answer other than the
		// refusal. An allocation made under this key proves there is one;
		// submitting again then finds the original application (or, for
		// a key first used synchronously, makes one the processor decides
		// as a replay of that booking).
		a, err := s.store.FindByKey(ctx, patientID, key)
		if booking.ErrorCode(err) == booking.CodeNotFound || (err == nil && a.Fingerprint != booking.Fingerprint(slotID)) {
			return booking.Application{}, false, ref
		}
		if err != nil {
			return booking.Application{}, false, s.storeErr(ctx, err)
		}
	}
	if err := s.turnRefusal(ctx, round, patientID, slotID, now); err != nil && round.Accepting(now) {
		return booking.Application{}, false, err
	}
	app, existed, err := s.store.SubmitApplication(ctx, booking.Application{
		RoundID: roundID, PatientID: patientID, SlotID: slotID, Status: booking.ApplicationPending,
		IdempotencyKey: key, Fingerprint: booking.ApplicationFingerprint(roundID, slotID),
	}, now)
	if err != nil {
		return booking.Application{}, false, s.storeErr(ctx, err)
	}
	if app.Status == booking.ApplicationPending {
		// Also for a retry: the wake is cheap, and if the pending row was
		// left by a crashed instance this decides it now, not at the sweep.
		s.wakeRound(roundID)
	}
	return app, existed, nil
}

// Application returns one application of patientID (any patient's when
// patientID is 0, for admins). Another patient's application is not found.
func (s *Service) Application(ctx context.Context, id, patientID int64) (booking.Application, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	a, err := s.store.GetApplication(ctx, id)
	if err != nil {
		return booking.Application{}, s.storeErr(ctx, err)
	}
	if patientID != 0 && a.PatientID != patientID {
		return booking.Application{}, booking.NotFound("application")
	}
	return a, nil
}

// ProcessRound decides the round's pending applications, DecideBatch per
// transaction, until none is left, and reports how many it decided. It is
// what the processor's goroutines run; tests call it to decide at a moment
// of their choosing.
func (s *Service) ProcessRound(ctx context.Context, roundID int64) (int, error) {
	total := 0
	for {
		since := s.gates.epoch()
		decided, err := s.decidePending(ctx, roundID)
		total += len(decided)
		if err != nil {
			return total, err
		}
		s.afterDecisions(ctx, decided, since)
		if len(decided) < DecideBatch {
			return total, nil
		}
	}
}

func (s *Service) decidePending(ctx context.Context, roundID int64) ([]booking.Application, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	decided, err := s.store.DecidePending(ctx, roundID, DecideBatch, s.now())
	if s.observer != nil && len(decided) > 0 {
		s.observer.Batch(len(decided), time.Since(start))
	}
	return decided, s.storeErr(ctx, err)
}

// afterDecisions keeps the gates and watchers as informed as a synchronous
// booking would: a slot that refused for lack of room is marked full, a
// slot that gave a place drops from the caches.
func (s *Service) afterDecisions(ctx context.Context, decided []booking.Application, since uint64) {
	seen := map[int64]bool{}
	for _, a := range decided {
		switch {
		case a.Status == booking.ApplicationRejected && a.Reason == booking.CodeSlotFull:
			s.gates.markFull(a.SlotID, s.now(), since)
		case a.Status == booking.ApplicationAllocated && !seen[a.SlotID]:
			seen[a.SlotID] = true
			s.changed(booking.Appointment{ID: a.AppointmentID, SlotID: a.SlotID, DoctorID: s.resourceOf(ctx, a)})
		}
	}
}

// resourceOf returns the resource (room) of an allocated application's
// slot, 0 when it cannot be read (the watchers then drop less; the caches
// expire on their own).
func (s *Service) resourceOf(ctx context.Context, a booking.Application) int64 {
	p := &s.rounds
	p.mu.Lock()
	id, ok := p.resources[a.SlotID]
	p.mu.Unlock()
	if ok {
		return id
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	sl, err := s.store.GetSlot(ctx, a.SlotID)
	if err != nil {
		return 0
	}
	p.mu.Lock()
	if p.resources == nil || len(p.resources) >= maxGateSlots {
		p.resources = map[int64]int64{}
	}
	p.resources[a.SlotID] = sl.DoctorID
	p.mu.Unlock()
	return sl.DoctorID
}

// wakeRound makes sure a goroutine decides roundID's pending applications
// soon: it starts one, or asks the running one for another pass so that an
// application that arrived during its last DecidePending is not left
// behind until the sweep.
func (s *Service) wakeRound(roundID int64) {
	p := &s.rounds
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	if p.running == nil {
		p.running, p.again = map[int64]bool{}, map[int64]bool{}
	}
	if p.running[roundID] {
		p.again[roundID] = true
		return
	}
	p.running[roundID] = true
	ctx := p.base
	if ctx == nil {
		ctx = context.Background()
	}
	p.wg.Add(1)
	go s.drainRound(ctx, roundID)
}

// drainRound runs ProcessRound until no wake-up arrived during the last
// pass. A failed pass is retried a few times (a busy or restarting
// database should not leave applicants waiting for the sweep); after that
// the goroutine ends and the sweep tries again later.
func (s *Service) drainRound(ctx context.Context, roundID int64) {
	p := &s.rounds
	defer p.wg.Done()
	failures := 0
	for {
		p.mu.Lock()
		p.again[roundID] = false
		p.mu.Unlock()

		_, err := s.ProcessRound(ctx, roundID)
		if err != nil && failures < drainRetries && ctx.Err() == nil {
			wait := drainBackoff << failures
			failures++
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
			}
		}
		if err == nil {
			failures = 0
		}

		p.mu.Lock()
		if err != nil || ctx.Err() != nil || !p.again[roundID] {
			delete(p.running, roundID)
			delete(p.again, roundID)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// SweepRounds wakes the processor for every round with pending
// applications in the store, whoever submitted them.
func (s *Service) SweepRounds(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ids, err := s.store.PendingRounds(ctx)
	if err != nil {
		return s.storeErr(ctx, err)
	}
	for _, id := range ids {
		s.wakeRound(id)
	}
	return nil
}

// RunRoundProcessor decides asynchronous applications until ctx ends: the
// goroutines woken by SubmitApplication run under ctx, and every interval
// (DefaultSweepInterval when <= 0) a sweep picks up rounds whose pending
// applications this instance did not submit. It sweeps once at start, for
// what a crash left behind. On return no goroutine of the processor runs
// any more: a decision cut short by ctx is rolled back and stays PENDING
// for the next sweep, here or on another instance.
func (s *Service) RunRoundProcessor(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	p := &s.rounds
	p.mu.Lock()
	p.base = ctx
	p.mu.Unlock()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		_ = s.DrawDue(ctx)     // before the sweep: a draw opens turns
		_ = s.SweepRounds(ctx) // a failed sweep is retried at the next tick
		select {
		case <-ctx.Done():
			p.mu.Lock()
			p.stopped = true
			p.mu.Unlock()
			p.wg.Wait()
			return
		case <-t.C:
		}
	}
}

// drainRetries bounds how often drainRound retries a failed pass before
// leaving the round to the sweep; the waits double from drainBackoff.
const (
	drainRetries = 4
	drainBackoff = 50 * time.Millisecond
)
