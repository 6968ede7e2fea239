package sqlite

import (
	"context"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// BookGroup decides a group booking as one batch in one write
// transaction (booking.GroupStore): unlike Book it never decides its
// requests alone, which would break all or nothing; a constraint that
// fires, or no run of consecutive numbers, refuses every member.
func (s *Store) BookGroup(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	res, err := s.bookBatch(ctx, slotID, reqs, now)
	var v *violation
	var be *booking.Error
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &v):
		return booking.RefuseAll(reqs, bookingErr(v.name, slotID, v.err)), nil
	case errors.As(err, &be):
		return booking.RefuseAll(reqs, be), nil
	}
	return nil, mapErr(err, "")
}
