package main

import (
	"context"
	"flag"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/redisstate"
)

// clusterFlags are serve's flags for running many instances (README
// "Running many instances").
type clusterFlags struct {
	redis string
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.redis, "redis", "", "Redis URL (redis://host:port/db) sharing the per-patient limit, known-full marks, list-cache invalidations and in-flight Idempotency-Keys between instances; off when empty")
}

// sharedState is the Redis-backed admission state, or nil without --redis.
func (c *clusterFlags) sharedState(f *serveFlags, logger *slog.Logger) (*redisstate.State, error) {
	if c.redis == "" {
		return nil, nil
	}
	return redisstate.New(c.redis, redisstate.Options{
		Rate: f.bookingRate, Window: f.bookingPer, Logger: logger,
		Fallback: booking.NewRateLimiter(f.bookingRate, f.bookingPer, 100_000),
	})
}

// useShared puts st into the service's options.
func useShared(opts *booking.Options, st *redisstate.State) {
	if st != nil {
		opts.Limiter, opts.Peers = st, st
	}
}

// runShared exposes st's health and fallbacks and relays its signals until
// ctx ends.
func runShared(ctx context.Context, st *redisstate.State, svc *booking.Service, m *metrics.Metrics) func() {
	if st == nil {
		return func() {}
	}
	m.GaugeFunc("slotd_redis_up", "1 while Redis answers; 0 while the admission state falls back to in-process.", func() float64 {
		if st.Up() {
			return 1
		}
		return 0
	})
	for _, layer := range []string{redisstate.LayerLimit, redisstate.LayerKey, redisstate.LayerPublish} {
		m.CounterFunc("slotd_redis_fallbacks_total", "Calls answered in-process because Redis was slow or down, by layer.",
			prometheus.Labels{"layer": layer}, func() float64 { return st.Fallbacks(layer) })
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); st.Run(rctx, svc) }()
	return func() { cancel(); <-done; st.Close() }
}
