package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/jobs"
	"github.com/slotd/slotd/metrics"
)

// reconcileCounts names what a reconciliation found, for its metric.
func reconcileCounts(r booking.Reconciliation) map[string]int {
	return map[string]int{
		"counter_mismatch":     len(r.CounterMismatches),
		"duplicate_active":     len(r.DuplicateActives),
		"round_quota_mismatch": len(r.RoundQuotaMismatches),
		"stale_hold":           len(r.StaleHolds),
		"refund_needed":        len(r.RefundsNeeded),
		"payment_conflict":     len(r.PaymentConflicts),
	}
}

// watchReconciliation checks the invariants (without repairing) a little
// after start, out of the way of the start-up work, and then every interval
// until ctx ends, so that the reconciliation alert sees a breach without
// anyone running `slotd reconcile`.
func watchReconciliation(ctx context.Context, svc *booking.Service, m *metrics.Metrics, every time.Duration, logger *slog.Logger) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(min(every, 30*time.Second)):
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		rep, err := svc.Reconcile(ctx, false)
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("periodic reconciliation failed", "err", err)
		case err == nil:
			m.Reconciled(time.Now(), reconcileCounts(rep))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// registerJobGauges exposes the job backlog, read at each scrape.
func registerJobGauges(m *metrics.Metrics, r *jobs.Runner, logger *slog.Logger) {
	m.GaugeFunc("slotd_jobs_backlog", "Jobs waiting to be worked (available or to retry), up to 10000.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		n, err := r.Backlog(ctx)
		if err != nil {
			logger.Warn("counting the job backlog", "err", err)
			return -1
		}
		return float64(n)
	})
}
