package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// LeftoverInterval is how often the leftover scan runs: a place left when
// a slot's check-in window closes (or a leftover offer declined or
// expired) is offered to the next standby at most this late.
const LeftoverInterval = time.Minute

// LeftoverArgs is the periodic leftover scan (service.Service.OfferLeftovers).
type LeftoverArgs struct{}

// Kind names the job kind in River's table.
func (LeftoverArgs) Kind() string { return "slotd.offer_leftovers" }

type leftoverWorker struct {
	river.WorkerDefaults[LeftoverArgs]
	w *workers
}

// Work runs one leftover scan.
func (lw *leftoverWorker) Work(ctx context.Context, _ *river.Job[LeftoverArgs]) error {
	as, err := lw.w.svc.OfferLeftovers(ctx)
	if len(as) > 0 {
		lw.w.logger.Info("leftover offers made", "count", len(as))
	}
	return err
}
