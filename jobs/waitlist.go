package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// OfferArgs is the waitlist's offer job for one slot, written by the
// transaction that kept places of the slot for the waitlist
// (booking.NotifyOfferDue). Running it twice changes nothing the second
// time: the first left nothing pending.
type OfferArgs struct {
	SlotID int64 `json:"slotId"`
}

// Kind names the job kind in River's table.
func (OfferArgs) Kind() string { return "slotd.waitlist_offer" }

// InsertOpts puts offers on the maintenance queue, apart from messages.
func (OfferArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: QueueMaintenance} }

type offerWorker struct {
	river.WorkerDefaults[OfferArgs]
	w *workers
}

// Work makes the slot's offers through the Service.
func (ow *offerWorker) Work(ctx context.Context, job *river.Job[OfferArgs]) error {
	as, err := ow.w.svc.MakeOffers(ctx, job.Args.SlotID)
	if err != nil {
		return fmt.Errorf("waitlist offers of slot %d: %w", job.Args.SlotID, err)
	}
	if len(as) > 0 {
		ow.w.logger.Info("waitlist offers made", "slot", job.Args.SlotID, "count", len(as))
	}
	return nil
}

// ReminderInterval is how often the reminder scan runs: a reminder is sent
// at most this late after its offset.
const ReminderInterval = time.Minute

// ReminderArgs is the periodic reminder scan.
type ReminderArgs struct{}

// Kind names the job kind in River's table.
func (ReminderArgs) Kind() string { return "slotd.send_reminders" }

type reminderWorker struct {
	river.WorkerDefaults[ReminderArgs]
	w *workers
}

// Work runs one reminder scan (service.Service.SendReminders).
func (rw *reminderWorker) Work(ctx context.Context, _ *river.Job[ReminderArgs]) error {
	scan, err := rw.w.svc.SendReminders(ctx)
	if scan.Sent > 0 || scan.Passed > 0 {
		rw.w.logger.Info("reminders enqueued", "count", scan.Sent, "passed", scan.Passed)
	}
	return err
}
