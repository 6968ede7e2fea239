// Package redisstate shares slotd's admission state between instances
// through Redis (--redis): the per-patient booking limit as one GCRA budget
// (redis_rate), known-full marks and list-cache invalidations as pub/sub
// signals, and Idempotency-Keys in flight as short-lived SET NX claims.
//
// Redis is never the source of truth: the database decides every booking.
// Every call is bounded by Options.Timeout; a failure falls back to the
// in-process form (the Fallback limiter, no claim, no signal) for Backoff,
// counted per layer and logged once per outage, and Redis is tried again
// after it, so an outage heals by itself. booking does not import this
// package: cmd/slotd hands it to the Service as a booking.Limiter and
// booking.Peers.
package redisstate

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/slotd/slotd/booking"
)

// Layers, as counted by Fallbacks.
const (
	LayerLimit   = "limit"
	LayerKey     = "idempotency-key"
	LayerPublish = "publish"
)

// Channel is the pub/sub channel of the signals.
const Channel = "slotd:signals"

// Options configure New.
type Options struct {
	// Rate attempts per Window per patient, for every instance together.
	Rate   int
	Window time.Duration
	// Fallback answers while Redis cannot (the in-process limiter).
	Fallback booking.Limiter
	// Timeout bounds each Redis call (default 250ms: a loaded Redis still
	// answers, a stopped one is left within it).
	Timeout time.Duration
	// Backoff is how long Redis is left alone after a failure (default 1s).
	Backoff time.Duration
	Logger  *slog.Logger
}

// State is the Redis-backed booking.Limiter and booking.Peers of one
// instance.
type State struct {
	rdb     *redis.Client
	limiter *redis_rate.Limiter
	limit   redis_rate.Limit
	opts    Options
	id      string // this instance, to skip its own signals
	out     chan booking.Signal

	downUntil atomic.Int64 // unix nanos; Redis is skipped before it
	outage    atomic.Bool  // an outage has been logged and not yet healed
	mu        sync.Mutex
	fallbacks map[string]float64
}

// New connects to the Redis at url (redis://host:port/db). It fails only
// for a malformed URL: a Redis that is down at start is an outage like any
// other.
func New(url string, opts Options) (*State, error) {
	ro, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("--redis: %w", err)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 250 * time.Millisecond
	}
	if opts.Backoff <= 0 {
		opts.Backoff = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Fallback == nil {
		return nil, errors.New("redisstate: a Fallback limiter is required")
	}
	// Every wait is bounded by Timeout; retries would multiply it.
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout, ro.PoolTimeout = opts.Timeout, opts.Timeout, opts.Timeout, opts.Timeout
	ro.MaxRetries = -1
	// Every booking makes a call or two; the default (10 per CPU) queues a
	// rush's attempts behind each other into the timeout.
	ro.PoolSize = max(ro.PoolSize, 128)
	rdb := redis.NewClient(ro)
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &State{
		rdb: rdb, limiter: redis_rate.NewLimiter(rdb), opts: opts,
		limit: redis_rate.Limit{Rate: opts.Rate, Burst: opts.Rate, Period: opts.Window},
		id:    hex.EncodeToString(b[:]), out: make(chan booking.Signal, 4096),
		fallbacks: map[string]float64{},
	}, nil
}

// Close ends the connections.
func (s *State) Close() error { return s.rdb.Close() }

// Up says whether Redis answered the last call or probe (for a gauge):
// false from a failure until Redis answers again.
func (s *State) Up() bool { return !s.outage.Load() }

// Fallbacks returns how often each layer fell back to its in-process form.
func (s *State) Fallbacks(layer string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fallbacks[layer]
}

// usable says whether to try Redis now; false during a backoff.
func (s *State) usable() bool { return time.Now().UnixNano() >= s.downUntil.Load() }

// failed records a failed call of layer and starts a backoff.
func (s *State) failed(layer string, err error) {
	s.fellBack(layer)
	s.downUntil.Store(time.Now().Add(s.opts.Backoff).UnixNano())
	if s.outage.CompareAndSwap(false, true) {
		s.opts.Logger.Warn("redis unavailable: falling back to in-process admission state", "layer", layer, "err", err, "retry_in", s.opts.Backoff)
	}
}

func (s *State) fellBack(layer string) {
	s.mu.Lock()
	s.fallbacks[layer]++
	s.mu.Unlock()
}

// ok records a successful call, ending an outage.
func (s *State) ok() {
	if s.outage.CompareAndSwap(true, false) {
		s.opts.Logger.Info("redis available again: admission state shared")
	}
}

// Allow spends one of patientID's attempts from the shared GCRA budget, or
// from the fallback while Redis does not answer. now is the fallback's
// clock; the shared budget runs on Redis's own clock.
func (s *State) Allow(patientID int64, now time.Time) booking.RateDecision {
	if !s.usable() {
		s.fellBack(LayerLimit)
		return s.opts.Fallback.Allow(patientID, now)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
	defer cancel()
	res, err := s.limiter.Allow(ctx, "patient:"+strconv.FormatInt(patientID, 10), s.limit)
	if err != nil {
		s.failed(LayerLimit, err)
		return s.opts.Fallback.Allow(patientID, now)
	}
	s.ok()
	d := booking.RateDecision{Allowed: res.Allowed > 0, Quota: s.opts.Rate, Window: s.opts.Window,
		Remaining: res.Remaining, Reset: max(res.ResetAfter, 0)}
	if !d.Allowed {
		d.RetryAfter = max(res.RetryAfter, time.Second)
	}
	return d
}

// claimScript deletes a claim only while it is still this request's, so a
// claim that expired and was taken by a later request is left alone.
var claimScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// ClaimKey claims patientID's key for ttl with SET NX. Redis down: the
// claim is granted (this instance's own in-flight check and the database's
// unique index still hold).
func (s *State) ClaimKey(ctx context.Context, patientID int64, key string, ttl time.Duration) (func(), bool) {
	nop := func() {}
	if !s.usable() {
		s.fellBack(LayerKey)
		return nop, true
	}
	h := sha256.Sum256([]byte(key)) // keys are client text: stored hashed, bounded
	rkey := "slotd:key:" + strconv.FormatInt(patientID, 10) + ":" + hex.EncodeToString(h[:16])
	var tb [8]byte
	_, _ = rand.Read(tb[:])
	token := hex.EncodeToString(tb[:])
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.Timeout)
	defer cancel()
	won, err := s.rdb.SetNX(cctx, rkey, token, ttl).Result()
	if err != nil {
		s.failed(LayerKey, err)
		return nop, true
	}
	s.ok()
	if !won {
		return nop, false
	}
	return func() {
		rctx, cancel := context.WithTimeout(context.Background(), s.opts.Timeout)
		defer cancel()
		if err := claimScript.Run(rctx, s.rdb, []string{rkey}, token).Err(); err != nil {
			// The claim ends with its ttl anyway.
			s.failed(LayerKey, err)
		}
	}, true
}

// envelope is a signal on the channel, with its sender.
type envelope struct {
	From string `json:"from"`
	booking.Signal
}

// Publish queues sig for the other instances; the request never waits for
// Redis. A full queue drops it (counted): marks and caches expire anyway.
func (s *State) Publish(sig booking.Signal) {
	select {
	case s.out <- sig:
	default:
		s.fellBack(LayerPublish)
	}
}

// Run publishes queued signals and applies the other instances' to svc
// until ctx ends. The subscription reconnects by itself; signals published
// while it was away are lost, which costs only the marks' and caches' TTLs.
func (s *State) Run(ctx context.Context, svc interface{ Receive(booking.Signal) }) {
	sub := s.rdb.Subscribe(ctx, Channel)
	defer sub.Close()
	go s.publishLoop(ctx)
	ch := sub.Channel(redis.WithChannelHealthCheckInterval(5 * time.Second))
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			var e envelope
			if json.Unmarshal([]byte(m.Payload), &e) != nil || e.From == s.id {
				continue
			}
			svc.Receive(e.Signal)
		}
	}
}

func (s *State) publishLoop(ctx context.Context) {
	// During an outage Redis is probed each second, so that it is known
	// (gauge, log line) to be back even while no request calls it.
	probe := time.NewTicker(time.Second)
	defer probe.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-probe.C:
			if !s.outage.Load() || !s.usable() {
				continue
			}
			pctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
			err := s.rdb.Ping(pctx).Err()
			cancel()
			if err != nil {
				s.downUntil.Store(time.Now().Add(s.opts.Backoff).UnixNano())
				continue
			}
			s.ok()
		case sig := <-s.out:
			if !s.usable() {
				s.fellBack(LayerPublish)
				continue
			}
			b, _ := json.Marshal(envelope{From: s.id, Signal: sig})
			pctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
			err := s.rdb.Publish(pctx, Channel, b).Err()
			cancel()
			if err != nil && ctx.Err() == nil {
				s.failed(LayerPublish, err)
				continue
			}
			s.ok()
		}
	}
}
