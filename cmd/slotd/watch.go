package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/slotd/slotd/jobs"
	"github.com/slotd/slotd/metrics"
)

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
