package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// BookGroup decides a group booking as one batch in one transaction
// (booking.GroupStore): unlike Book it never decides its requests alone,
// which would break all or nothing. A deadlock, or its key committed by a
// racing retry meanwhile (then answered as a replay), is tried again; any
// other constraint that fires, or no run of consecutive numbers, refuses
// every member.
func (s *Store) BookGroup(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var err error
	for range 3 {
		var res []booking.BookResult
		if res, err = s.bookBatch(ctx, slotID, reqs, now); err == nil {
			return res, nil
		}
		var be *booking.Error
		switch c := constraintOf(err); {
		case errors.As(err, &be):
			return booking.RefuseAll(reqs, be), nil
		case c == booking.ConPatientKey, c == "" && retryAlone(err):
			continue
		case c != "":
			if e := booking.ConstraintError(c, slotID); e != nil {
				return booking.RefuseAll(reqs, e), nil
			}
		}
		return nil, translate(err, "")
	}
	return nil, translate(err, "")
}
