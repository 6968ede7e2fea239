package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/slotd/slotd/events"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/redisstate"
	"github.com/slotd/slotd/service"
)

// clusterFlags are serve's flags for running many instances (docs/operations.md,
// "Running many instances").
type clusterFlags struct {
	redis  string
	amqp   string
	kafka  string
	dbRead string
}

func (c *clusterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.amqp, "amqp", "", "RabbitMQ URL (amqp://…): publish domain events to its durable topic exchange slotd.events, with publisher confirms")
	fs.StringVar(&c.kafka, "kafka-brokers", "", "comma-separated Kafka seed brokers: publish domain events to topic slotd.events, keyed by appointment")
	fs.StringVar(&c.dbRead, "db-read", "", "PostgreSQL URL of a streaming replica serving slot lists and availability (bookings and everything after a write read --db)")
	fs.StringVar(&c.redis, "redis", "", "Redis URL (redis://host:port/db) sharing the per-patient limit, known-full marks, list-cache invalidations and in-flight Idempotency-Keys between instances; off when empty")
}

// sharedState is the Redis-backed admission state, or nil without --redis.
func (c *clusterFlags) sharedState(f *serveFlags, logger *slog.Logger) (*redisstate.State, error) {
	if c.redis == "" {
		return nil, nil
	}
	return redisstate.New(c.redis, redisstate.Options{
		Rate: f.bookingRate, Window: f.bookingPer, Logger: logger,
		Fallback: service.NewRateLimiter(f.bookingRate, f.bookingPer, 100_000),
	})
}

// useShared puts st into the service's options.
func useShared(opts *service.Options, st *redisstate.State) {
	if st != nil {
		opts.Limiter, opts.Peers = st, st
	}
}

// runShared exposes st's health and fallbacks and relays its signals until
// ctx ends. The fallback counters exist without --redis too (nothing falls
// back then), so that the dashboard and alert always find them.
func runShared(ctx context.Context, st *redisstate.State, svc *service.Service, m *metrics.Metrics) func() {
	for _, layer := range []string{redisstate.LayerLimit, redisstate.LayerKey, redisstate.LayerPublish} {
		fn := func() float64 { return 0 }
		if st != nil {
			fn = func() float64 { return st.Fallbacks(layer) }
		}
		m.LabelledCounterFunc("slotd_redis_fallbacks_total", "Calls answered in-process because Redis was slow or down, by layer.",
			prometheus.Labels{"layer": layer}, fn)
	}
	if st == nil {
		return func() {}
	}
	m.GaugeFunc("slotd_redis_up", "1 while Redis answers; 0 while the admission state falls back to in-process.", func() float64 {
		if st.Up() {
			return 1
		}
		return 0
	})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); st.Run(rctx, svc) }()
	return func() { cancel(); <-done; st.Close() }
}

// events reports whether a broker is configured: the store then writes
// the domain events (openServing) for runEvents to relay.
func (c *clusterFlags) events() bool { return c.amqp != "" || c.kafka != "" }

// runEvents relays the store's domain events to the configured brokers
// until the returned stop is called; without a broker it does nothing.
func (c *clusterFlags) runEvents(ctx context.Context, st store, m *metrics.Metrics, logger *slog.Logger) (func(), error) {
	var pubs []events.Publisher
	if c.amqp != "" {
		pubs = append(pubs, events.NewAMQP(c.amqp))
	}
	if c.kafka != "" {
		k, err := events.NewKafka(strings.Split(c.kafka, ","))
		if err != nil {
			return nil, err
		}
		pubs = append(pubs, k)
	}
	const backlog, backlogHelp = "slotd_events_backlog", "Domain events written but not yet confirmed by every broker (0 without --amqp/--kafka-brokers)."
	const published, publishedHelp = "slotd_events_published_total", "Domain events this instance published (its brokers confirmed)."
	if len(pubs) == 0 {
		zero := func() float64 { return 0 }
		m.GaugeFunc(backlog, backlogHelp, zero)
		m.CounterFunc(published, publishedHelp, zero)
		return func() {}, nil
	}
	es, ok := st.(events.Outbox)
	if !ok {
		return nil, fmt.Errorf("--amqp/--kafka-brokers: the %T store keeps no event relay cursor", st)
	}
	r := &events.Relay{Outbox: es, Publishers: pubs, Logger: logger}
	m.GaugeFunc(backlog, backlogHelp, r.Backlog)
	m.CounterFunc(published, publishedHelp, r.Published)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.Run(rctx) }()
	return func() {
		cancel()
		<-done
		for _, p := range pubs {
			p.Close()
		}
	}, nil
}

// registerQueryCounters counts the queries of each PostgreSQL pool, the
// primary's and the replica's (--db-read), so that an operator, and
// scripts/cluster, see which database serves what.
func registerQueryCounters(m *metrics.Metrics, primary store, replica *postgres.Store) {
	const name, help = "slotd_db_queries_total", "Queries and pipelines sent to PostgreSQL, by pool (primary, replica: --db-read)."
	if p, ok := primary.(interface{ Queries() int64 }); ok {
		m.LabelledCounterFunc(name, help, prometheus.Labels{"pool": "primary"}, func() float64 { return float64(p.Queries()) })
	}
	if replica != nil {
		m.LabelledCounterFunc(name, help, prometheus.Labels{"pool": "replica"}, func() float64 { return float64(replica.Queries()) })
	}
}
