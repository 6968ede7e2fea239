package service

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/slotd/slotd/booking"
)

// Lottery rounds (docs/clinic.md, "Lottery rounds"): the Service draws the
// seed, registers people, runs the draw at the close (from the round
// processor's sweep, or an admin's request) and counts both for metrics.

// LotteryObserver is what an Options.Observer may also implement to count
// lottery registrations and draws (cmd/slotd's metrics do).
type LotteryObserver interface {
	// LotteryRegistered counts one registration request by outcome:
	// "created", "existing" (a retry) or a problem code.
	LotteryRegistered(outcome string)
	// LotteryDrawn counts one draw that ran, by trigger ("close" or
	// "admin"), with its number of registrants.
	LotteryDrawn(trigger string, registrants int)
}

// NewSeed returns a fresh lottery seed from crypto/rand.
func NewSeed() ([]byte, error) {
	seed := make([]byte, booking.SeedSize)
	_, err := rand.Read(seed)
	return seed, err
}

// Register registers patientID in the round's lottery; a retry returns the
// first registration with existed set.
func (s *Service) Register(ctx context.Context, roundID, patientID int64) (booking.Registration, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	g, existed, err := s.store.Register(ctx, roundID, patientID, s.now())
	if obs, ok := s.observer.(LotteryObserver); ok {
		switch {
		case err != nil:
			obs.LotteryRegistered(string(booking.ErrorCode(err)))
		case existed:
			obs.LotteryRegistered("existing")
		default:
			obs.LotteryRegistered("created")
		}
	}
	return g, existed, s.storeErr(ctx, err)
}

// Registration returns patientID's registration in the round.
func (s *Service) Registration(ctx context.Context, roundID, patientID int64) (booking.Registration, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Registration, error) {
		return s.store.Registration(ctx, roundID, patientID)
	})
}

// Registrations lists the round's registrations after afterID, by id.
func (s *Service) Registrations(ctx context.Context, roundID, afterID int64, limit int) ([]booking.Registration, error) {
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Registration, error) {
		return s.store.ListRegistrations(ctx, roundID, afterID, limit)
	})
}

// Draw runs the round's draw if it has not run (see Store.DrawLottery) and
// returns it; drew says whether this call ran it.
func (s *Service) Draw(ctx context.Context, roundID int64, trigger string) (booking.Draw, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	d, drew, err := s.store.DrawLottery(ctx, roundID, s.now())
	if err != nil {
		return booking.Draw{}, false, s.storeErr(ctx, err)
	}
	if drew {
		if obs, ok := s.observer.(LotteryObserver); ok {
			obs.LotteryDrawn(trigger, len(d.Order))
		}
	}
	return d, drew, nil
}

// PublishedDraw returns the round's draw once it ran.
func (s *Service) PublishedDraw(ctx context.Context, roundID int64) (booking.Draw, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.Draw, error) { return s.store.GetDraw(ctx, roundID) })
}

// DrawDue runs the draw of every lottery whose registration has closed;
// the round processor's sweep calls it. Two instances may both try: the
// store runs each draw once.
func (s *Service) DrawDue(ctx context.Context) error {
	ids, err := bounded(s, ctx, func(ctx context.Context) ([]int64, error) { return s.store.LotteriesDue(ctx, s.now()) })
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, _, err := s.Draw(ctx, id, "close"); err != nil {
			return err
		}
	}
	return nil
}

// turnRefusal refuses, before anything is stored, an application to a
// lottery round that is not the patient's turn at now (the store's booking
// decision refuses it too; this answers an asynchronous one at once).
func (s *Service) turnRefusal(ctx context.Context, round booking.Round, patientID, slotID int64, now time.Time) error {
	if round.Lottery == nil {
		return nil
	}
	g, err := s.store.Registration(ctx, round.ID, patientID)
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return booking.TurnRefusal(nil, slotID, now)
	}
	if err != nil {
		return s.storeErr(ctx, err)
	}
	if ref := booking.TurnRefusal(g.Turn(), slotID, now); ref != nil {
		return ref
	}
	return nil
}
