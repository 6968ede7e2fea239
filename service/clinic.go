package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// slotCollector collects the slots a generation would insert.
type slotCollector struct{ slots []booking.Slot }

func (c *slotCollector) InsertSlots(_ context.Context, s []booking.Slot) (int, error) {
	c.slots = append(c.slots, s...)
	return len(s), nil
}
