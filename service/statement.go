package service

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/payments"
)

// StatementBudget bounds a day's reconciliation against the provider:
// the provider's statement (a bill to download) and the day's records.
const StatementBudget = 60 * time.Second

// MaxStatementDays is how far back a day may be reconciled against the
// provider: WeChat Pay keeps its bills three months, and a year is beyond
// any provider's promise.
const MaxStatementDays = 366

// StatementObserver is what an Options.Observer may also implement to
// export a day's reconciliation against the provider (cmd/slotd's
// metrics do): its differences by kind.
type StatementObserver interface {
	StatementChecked(c booking.StatementCheck)
}

// lastStatement is the newest StatementCheck this process made, for the
// staff page.
type lastStatement struct {
	mu sync.Mutex
	c  *booking.StatementCheck
}

// ReconcileStatement reconciles the day that starts at day (midnight in
// the clinic's zone; the day ends at the next midnight) against the
// payment provider's statement: each of the provider's payments and
// refunds must match one record of slotd's of the same amount, and each
// of slotd's one of the provider's (booking.MatchStatement). A provider
// without statements (payments.ErrNoStatement) is reconciled from slotd's
// records alone (Source "records"). The check is kept for the staff page
// and exported to the observer; it changes nothing.
func (s *Service) ReconcileStatement(ctx context.Context, day time.Time) (booking.StatementCheck, error) {
	if s.payments == nil {
		return booking.StatementCheck{}, booking.Errorf(booking.CodeUnavailable, "no payment provider is configured")
	}
	from := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, day.Location())
	to := from.AddDate(0, 0, 1)
	if now := s.now(); !from.Before(now) || now.Sub(from) > MaxStatementDays*24*time.Hour {
		return booking.StatementCheck{}, booking.Errorf(booking.CodeInvalidRequest, "day must be one of the last %d days, today at the latest", MaxStatementDays)
	}
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, StatementBudget))
	defer cancel()
	c := booking.StatementCheck{Day: from.Format(time.DateOnly), From: from.UTC(), To: to.UTC(), Provider: s.payments.Name(),
		Source: "provider", Differences: []booking.StatementDifference{}}
	ours, err := s.store.StatementRecords(ctx, from.Add(-booking.StatementMargin), to.Add(booking.StatementMargin))
	if err != nil {
		return booking.StatementCheck{}, s.storeErr(ctx, err)
	}
	theirs, err := s.payments.Statement(ctx, from, to)
	switch {
	case errors.Is(err, payments.ErrNoStatement):
		c.Source = "records"
	case err != nil:
		e := booking.Errorf(booking.CodeUnavailable, "the payment provider's statement could not be read; try again")
		e.Err = err
		return booking.StatementCheck{}, e
	default:
		c.Lines = len(theirs)
		c.Differences = booking.MatchStatement(from, to, theirs, ours)
	}
	for _, l := range ours {
		if !l.At.Before(from) && l.At.Before(to) {
			c.Recorded++
		}
	}
	if c.Source == "records" {
		c.Lines = c.Recorded
	}
	c.CheckedAt = s.now()
	s.statement.mu.Lock()
	s.statement.c = &c
	s.statement.mu.Unlock()
	if obs, ok := s.observer.(StatementObserver); ok {
		obs.StatementChecked(c)
	}
	return c, nil
}

// LastStatementCheck is the newest day's reconciliation against the
// provider this process made (false: none yet).
func (s *Service) LastStatementCheck() (booking.StatementCheck, bool) {
	s.statement.mu.Lock()
	defer s.statement.mu.Unlock()
	if s.statement.c == nil {
		return booking.StatementCheck{}, false
	}
	return *s.statement.c, true
}
