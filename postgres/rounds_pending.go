package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// errRoundsPending stands in until the rounds (notes/rounds-contract.md) are
// implemented on this store.
var errRoundsPending = errors.New("postgres: rounds not implemented yet")

// CreateRoom is not implemented yet.
func (s *Store) CreateRoom(ctx context.Context, r booking.Room) (booking.Room, error) {
	return booking.Room{}, errRoundsPending
}

// ListRooms is not implemented yet.
func (s *Store) ListRooms(ctx context.Context, f booking.RoomFilter) ([]booking.Room, error) {
	return nil, errRoundsPending
}

// CreateRound is not implemented yet.
func (s *Store) CreateRound(ctx context.Context, r booking.Round) (booking.Round, error) {
	return booking.Round{}, errRoundsPending
}

// GetRound is not implemented yet.
func (s *Store) GetRound(ctx context.Context, id int64) (booking.Round, error) {
	return booking.Round{}, errRoundsPending
}

// SetRoundState is not implemented yet.
func (s *Store) SetRoundState(ctx context.Context, id int64, state string, now time.Time) (booking.Round, error) {
	return booking.Round{}, errRoundsPending
}

// AddRoundSlots is not implemented yet.
func (s *Store) AddRoundSlots(ctx context.Context, roundID int64, roomIDs []int64) ([]booking.Slot, error) {
	return nil, errRoundsPending
}

// ListRoundSlots is not implemented yet.
func (s *Store) ListRoundSlots(ctx context.Context, roundID int64, f booking.RoomFilter) ([]booking.RoundSlot, error) {
	return nil, errRoundsPending
}

// SubmitApplication is not implemented yet.
func (s *Store) SubmitApplication(ctx context.Context, a booking.Application, now time.Time) (booking.Application, bool, error) {
	return booking.Application{}, false, errRoundsPending
}

// GetApplication is not implemented yet.
func (s *Store) GetApplication(ctx context.Context, id int64) (booking.Application, error) {
	return booking.Application{}, errRoundsPending
}

// DecidePending is not implemented yet.
func (s *Store) DecidePending(ctx context.Context, roundID int64, limit int, now time.Time) ([]booking.Application, error) {
	return nil, errRoundsPending
}

// PendingRounds is not implemented yet.
func (s *Store) PendingRounds(ctx context.Context) ([]int64, error) {
	return nil, errRoundsPending
}

// RoundResults is not implemented yet.
func (s *Store) RoundResults(ctx context.Context, roundID int64) ([]booking.Allocation, error) {
	return nil, errRoundsPending
}
