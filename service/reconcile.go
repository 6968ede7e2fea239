package service

import (
	"context"
	"time"

	"github.com/slotd/slotd/booking"
)

// ReconcileBudget bounds a reconciliation: a grouped scan of every slot,
// longer than one ordinary store call may take.
const ReconcileBudget = 25 * time.Second

// Reconcile reports the invariant breaches (docs/reliability.md) and, with repair,
// sets counters from the rows (the gates then forget what they knew).
// It may take ReconcileBudget, longer than one ordinary call.
func (s *Service) Reconcile(ctx context.Context, repair bool) (booking.Reconciliation, error) {
	ctx, cancel := context.WithTimeout(ctx, max(s.timeout, ReconcileBudget))
	defer cancel()
	rep, err := s.store.Reconcile(ctx, s.now(), repair)
	if err != nil {
		return rep, s.storeErr(ctx, err)
	}
	if len(rep.Repaired) > 0 {
		s.gates.forgetAll()
		s.changed(booking.Appointment{})
	}
	return rep, nil
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
