package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/service"
)

// ReconcileArgs is the scheduled reconciliation (every
// Config.ReconcileInterval), a report without repair whose verdict is kept
// for the dashboard and the metrics (Service.RunReconciliation). It is the
// one schedule: River runs it on one instance at a time, and every
// instance exports the kept verdict.
type ReconcileArgs struct{}

// Kind names the job kind in River's table.
func (ReconcileArgs) Kind() string { return "slotd.reconcile" }

type reconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	w *workers
}

// Timeout leaves the grouped scan its budget.
func (*reconcileWorker) Timeout(*river.Job[ReconcileArgs]) time.Duration {
	return 2 * service.ReconcileBudget
}

// Work runs one reconciliation and keeps its verdict.
func (rw *reconcileWorker) Work(ctx context.Context, _ *river.Job[ReconcileArgs]) error {
	_, err := rw.w.reconcile(ctx)
	return err
}

func (w *workers) reconcile(ctx context.Context) (booking.ReconcileRun, error) {
	run, err := w.svc.RunReconciliation(jobActor(ctx, ReconcileArgs{}.Kind()))
	if err != nil {
		return run, fmt.Errorf("reconcile: %w", err)
	}
	if run.Violations > 0 || run.Pending > 0 {
		w.logger.Warn("reconciliation found work", "violations", run.Violations, "pending", run.Pending)
	}
	return run, nil
}

// Reconcile runs the scheduled reconciliation now (the scheduled job's work).
func (r *Runner) Reconcile(ctx context.Context) (booking.ReconcileRun, error) {
	return r.work.reconcile(ctx)
}

// jobActor marks ctx's changes as made by the job of kind, for the audit log.
func jobActor(ctx context.Context, kind string) context.Context {
	return booking.WithActor(ctx, booking.Actor{Role: booking.ActorJob, ID: kind})
}
