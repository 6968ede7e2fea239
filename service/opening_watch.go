package service

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/slotd/slotd/booking"
)

// A person's place in an opening's queue, followed live (an event stream:
// GET /api/openings/{id}/queue/events, the page's /openings/{id}/events):
// the place is read again every PlaceEvery and sent when it changed. The
// streams are bounded per instance; a refused one polls instead, as the
// page does without one.

// MaxPlaceStreams is the default bound of the open streams of queue
// places per instance (WaitingRoomOptions.PlaceStreams): each reads its
// place every PlaceEvery, so 500 are 500 indexed reads a second at most.
const MaxPlaceStreams = 500

// PlaceEvery is how often a stream reads its place; PlaceStreamFor how
// long one stream lasts (under the server's write timeout, and never
// holding up a graceful shutdown longer): the client reconnects and gets
// the place at once.
const (
	PlaceEvery     = time.Second
	PlaceStreamFor = 25 * time.Second
)

// PlaceStreamObserver is what an Options.Observer may also implement to
// follow the open streams (cmd/slotd's metrics do).
type PlaceStreamObserver interface {
	// PlaceStreams is the number of place streams open on this instance.
	PlaceStreams(open int)
}

// WatchOpeningPlace follows patientID's place in the opening's queue for
// PlaceStreamFor or until ctx ends: send gets the place at once and then
// each change, or nil every PlaceEvery when nothing changed (a keep-alive);
// it returns false to stop. The errors come before the first send: the
// caller is not in the queue (404), or the bound of streams is reached
// (503 overloaded: ask for the place instead).
func (s *Service) WatchOpeningPlace(ctx context.Context, openingID, patientID int64, send func(*booking.OpeningPlace) bool) error {
	select {
	case s.placeStreams <- struct{}{}:
	default:
		return booking.Errorf(booking.CodeOverloaded, "too many queue streams are open: ask for the place instead")
	}
	s.placeStreamsChanged()
	defer func() {
		<-s.placeStreams
		s.placeStreamsChanged()
	}()
	p, err := s.OpeningPlace(ctx, openingID, patientID)
	if err != nil {
		return err
	}
	last, _ := json.Marshal(p)
	if !send(&p) {
		return nil
	}
	end := time.NewTimer(PlaceStreamFor)
	defer end.Stop()
	tick := time.NewTicker(PlaceEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-end.C:
			return nil
		case <-tick.C:
		}
		p, err := s.OpeningPlace(ctx, openingID, patientID)
		if err != nil {
			return nil // the client reconnects and is answered then
		}
		b, _ := json.Marshal(p)
		var next *booking.OpeningPlace
		if !bytes.Equal(b, last) {
			next = &p
		}
		last = b
		if !send(next) {
			return nil
		}
	}
}

func (s *Service) placeStreamsChanged() {
	if obs, ok := s.observer.(PlaceStreamObserver); ok {
		obs.PlaceStreams(len(s.placeStreams))
	}
}
