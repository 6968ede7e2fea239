package service

import (
	"context"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/schedule"
)

// generateMarked generates sc's days [first, last] and then records last
// as its mark. The mark is written only after the slots committed, so a
// crash between the two makes the next pass redo those days (generation
// is idempotent), never skip them.
func (s *Service) generateMarked(ctx context.Context, ins schedule.SlotInserter, sc booking.Schedule, loc *time.Location, first, last time.Time) (int, error) {
	created, _, err := generate(ctx, ins, sc, loc, first, last)
	if err != nil {
		return created, err
	}
	return created, s.store.MarkGenerated(ctx, sc.ID, last.Format(time.DateOnly))
}

// WindowDays is schedule.Window at now in loc, its days as UTC midnights
// (how the Service passes civil dates).
func WindowDays(sc booking.Schedule, loc *time.Location, now time.Time) (first, last time.Time) {
	from, to := schedule.Window(sc, loc, now)
	return from.Midnight(), to.Midnight()
}

// generate is schedule.Apply for the local days first through last (UTC
// midnights), counting the slots created and those that existed.
func generate(ctx context.Context, ins schedule.SlotInserter, sc booking.Schedule, loc *time.Location, first, last time.Time) (created, existing int, err error) {
	return schedule.Apply(ctx, ins, sc, loc, schedule.DateOf(first, time.UTC), schedule.DateOf(last, time.UTC))
}
