package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// MarkRefunded settles a needs-refund payment with the provider's refund
// reference (see Store.MarkRefunded).
func (s *Service) MarkRefunded(ctx context.Context, tradeNo, ref string) (booking.Payment, error) {
	if ref == "" || len(ref) > booking.MaxRefundRefLen {
		return booking.Payment{}, booking.Errorf(booking.CodeInvalidRequest, "the refund reference must be 1 to %d characters", booking.MaxRefundRefLen)
	}
	return bounded(s, ctx, func(ctx context.Context) (booking.Payment, error) {
		return s.store.MarkRefunded(ctx, tradeNo, ref, s.now())
	})
}

// RunReconciliation is the scheduled reconciliation: a report without
// repair whose verdict is kept (Store.RecordReconcileRun) for the
// dashboard and the metrics of every instance.
func (s *Service) RunReconciliation(ctx context.Context) (booking.ReconcileRun, error) {
	rep, err := s.Reconcile(ctx, false)
	if err != nil {
		return booking.ReconcileRun{}, err
	}
	run := booking.ReconcileRun{CheckedAt: rep.CheckedAt, Violations: rep.Violations(), Pending: rep.Pending(), Kinds: rep.Kinds()}
	return run, s.storeErr(ctx, s.store.RecordReconcileRun(ctx, run))
}

// LastReconcileRun returns the newest scheduled reconciliation's verdict.
func (s *Service) LastReconcileRun(ctx context.Context) (booking.ReconcileRun, error) {
	return bounded(s, ctx, func(ctx context.Context) (booking.ReconcileRun, error) { return s.store.LastReconcileRun(ctx) })
}
