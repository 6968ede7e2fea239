package service

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/booking"
)

// A series or group booking is one transaction of its own, not a lane's
// batch: under a rush, requests that queued for the database longer than
// the timeout would each still cost a transaction that is then rolled back,
// and the rush would sell nothing. campaignGate admits a few at a time and
// answers the rest overloaded at once, while the wait is still short.
const (
	campaignConcurrent = 16  // transactions at once (SQLite runs them one by one anyway)
	campaignWaiting    = 256 // requests waiting beyond them; more are shed
)

// campaignGate bounds the series and group bookings in progress.
type campaignGate struct {
	slots   chan struct{}
	waiting atomic.Int32
}

func newCampaignGate() *campaignGate {
	return &campaignGate{slots: make(chan struct{}, campaignConcurrent)}
}

// enter admits one request, waiting for a turn while ctx allows; release
// ends its turn. A request beyond the waiting bound is overloaded.
func (g *campaignGate) enter(ctx context.Context) (release func(), err error) {
	select {
	case g.slots <- struct{}{}:
		return g.leave, nil
	default:
	}
	if g.waiting.Add(1) > campaignWaiting {
		g.waiting.Add(-1)
		return nil, &booking.Error{Code: booking.CodeOverloaded, Message: "too many booking requests are waiting; retry shortly", RetryAfter: time.Second}
	}
	defer g.waiting.Add(-1)
	select {
	case g.slots <- struct{}{}:
		return g.leave, nil
	case <-ctx.Done():
		return nil, Classify(ctx, ctx.Err())
	}
}

func (g *campaignGate) leave() { <-g.slots }
