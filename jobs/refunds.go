package jobs

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/slotd/slotd/booking"
)

// QueueRefunds is the refund jobs' queue: a provider that is slow or down
// delays neither messages nor hold expiry.
const QueueRefunds = "refunds"

// RefundArgs is the job of one refund, written by the transaction that
// decided it (booking.NotifyRefundDue) or by a staff retry. Its attempts
// are the refund's: River retries a refused one with its exponential
// backoff, and the last refusal fails the refund.
type RefundArgs struct {
	RefundID int64 `json:"refundId"`
}

// Kind names the job kind in River's table.
func (RefundArgs) Kind() string { return "slotd.refund" }

// InsertOpts puts refunds on their queue with the refund's attempts.
func (RefundArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueRefunds, MaxAttempts: booking.MaxRefundAttempts}
}

type refundWorker struct {
	river.WorkerDefaults[RefundArgs]
	w *workers
}

// Work makes one attempt through the Service (ProcessRefund), which asks
// the provider outside any transaction.
func (rw *refundWorker) Work(ctx context.Context, job *river.Job[RefundArgs]) error {
	r, err := rw.w.svc.ProcessRefund(ctx, job.Args.RefundID, job.Attempt >= job.MaxAttempts)
	if booking.ErrorCode(err) == booking.CodeNotFound {
		return river.JobCancel(err)
	}
	if err != nil {
		rw.w.logger.Warn("refund attempt failed", "refund", job.Args.RefundID, "attempt", job.Attempt, "state", r.State, "err", err)
		return fmt.Errorf("refund %d: %w", job.Args.RefundID, err)
	}
	return nil
}
