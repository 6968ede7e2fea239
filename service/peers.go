package service

import (
	"context"
	"time"

	"github.com/slotd/slotd/booking"
)

// Receive applies a Signal published by another instance, as if this
// instance had made the change: the gates update their marks and the
// watchers (list caches) drop the slot. Nothing is published again.
func (s *Service) Receive(sig booking.Signal) {
	switch sig.Kind {
	case booking.SignalFull:
		s.gates.markFull(sig.SlotID, s.now(), s.gates.epoch())
		return
	case booking.SignalReleased:
		s.gates.released(sig.SlotID)
	case booking.SignalForget:
		s.gates.forget(sig.SlotID)
	case booking.SignalChanged:
	default:
		return
	}
	s.tellWatchers(Change{SlotID: sig.SlotID, DoctorID: sig.DoctorID})
}

// publish tells the peers of sig, if there are peers.
func (s *Service) publish(sig booking.Signal) {
	if s.peers != nil {
		s.peers.Publish(sig)
	}
}

// claimKey claims key across instances for the whole attempt; without
// peers or a key there is nothing to claim.
func (s *Service) claimKey(ctx context.Context, patientID int64, key string) (release func(), ok bool) {
	if s.peers == nil || key == "" {
		return func() {}, true
	}
	return s.peers.ClaimKey(ctx, patientID, key, s.timeout+time.Second)
}
