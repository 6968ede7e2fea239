package sqlite

import (
	"testing"

	"github.com/slotd/slotd/ical/icaltest"
)

func TestCalendarTokens(t *testing.T) {
	icaltest.Run(t, func(t testing.TB) icaltest.Store { return newStore(t) })
}

func TestCalendarRoundFeed(t *testing.T) {
	icaltest.RunRoundFeed(t, func(t testing.TB) icaltest.Store { return newStore(t) })
}
