// Package jobs is slotd's background work on River: hold expiry, rolling
// slot generation and notification delivery (docs/operations.md).
//
// Every job row is written by River into the same database as the bookings,
// through the River driver the store provides (see Host). Notification jobs
// are inserted inside the very transaction of the state change they
// announce, through the Outbox the store was opened with, so a committed booking
// always has its confirmation job and a rolled-back one never does; a crash between commit
// and delivery only delays the message until a worker picks the row up. No
// worker calls out of the process while a database transaction is open.
//
// Periodic jobs (expiry, generation) are enqueued by River's elected leader
// only, so several instances do not multiply them; the work is safe to run
// concurrently anyway because the stores expire holds with conditional
// updates (and SKIP LOCKED on PostgreSQL) and insert slots idempotently.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/service"
)

// Host is a store that hosts River, TTx being its transaction type. The
// store owns its River driver (riverpgxv5 on PostgreSQL, riversqlite on
// SQLite), so this package names no store; River drivers come with two
// transaction types only, pgx.Tx and *sql.Tx.
type Host[TTx any] interface {
	booking.Store
	// RiverDriver is River's driver on the connections the store writes
	// through, so that job inserts can join the store's transactions.
	RiverDriver() riverdriver.Driver[TTx]
	// InTx runs fn in one write transaction and commits it when fn returns
	// nil (a job that completes itself while inserting others).
	InTx(ctx context.Context, fn func(tx TTx) error) error
}

// Outbox is a store's transactional outbox of notifications. Its Enqueue
// is given to the store when it is opened (postgres.Options.Enqueue,
// sqlite.Options.Enqueue): every state change that announces
// notifications calls it with its own transaction before commit, and an
// error rolls the change back. New binds it to the River client, which
// needs the opened store's driver; until then Enqueue fails, so that no
// change commits without its messages.
type Outbox[TTx any] struct {
	client atomic.Pointer[river.Client[TTx]]
}

// Enqueue inserts one job per notification through tx.
func (o *Outbox[TTx]) Enqueue(ctx context.Context, tx TTx, ns []booking.Notification) error {
	c := o.client.Load()
	if c == nil {
		return errors.New("jobs: the outbox has no job runner yet (jobs.New)")
	}
	if len(ns) == 0 {
		return nil // River refuses an empty insert
	}
	_, err := c.InsertManyTx(ctx, tx, enqueueParams(ns))
	return err
}

// Queue names. Notifications have their own queue so that a receiver that
// is slow or down (retries piling up) never delays hold expiry.
const (
	QueueMaintenance = river.QueueDefault
	QueueNotify      = "notify"
)

// Defaults of Config.
const (
	DefaultExpiryInterval = 30 * time.Second
	// NoShowInterval is how often the automatic no-shows are marked
	// (booking.Policy.NoShowGraceMinutes; nothing when it is off).
	NoShowInterval          = time.Minute
	DefaultGenerateInterval = time.Hour
	DefaultNotifyWorkers    = 10
	// DefaultRescueAfter is how long a job runs before River's rescuer
	// takes it for dead (its process killed mid-run) and retries it:
	// beyond the longest job's timeout (generation's 30m, a notification
	// batch's at most 30m), so that no job is rescued while it runs. The
	// delivery marks make a rescued notification job skip what it sent.
	DefaultRescueAfter = 35 * time.Minute
	// DefaultReconcileInterval keeps the reconciliation alerts
	// (deploy/prometheus/alerts.yml) within minutes of a breach.
	DefaultReconcileInterval = 5 * time.Minute
)

// ExpireBatch is how many holds one store call expires; a pass repeats the
// call while a batch comes back full.
const ExpireBatch = 100

// Config configures New and Start.
type Config struct {
	// Service makes the jobs' changes (hold expiry, slot generation), so
	// that its clock, timeouts and cache invalidation are the requests';
	// required.
	Service *service.Service
	// Notifier delivers notifications; required.
	Notifier notify.Notifier
	// Logger receives the workers' logs and River's warnings and errors;
	// slog.Default() if nil.
	Logger *slog.Logger
	// ExpiryInterval is how often HELD appointments past their deadline are
	// expired (default 30s).
	ExpiryInterval time.Duration
	// GenerateInterval is how often the newest days of every schedule's
	// horizon are generated (default 1h). It is short compared with a day
	// so that a day entering the horizon at local midnight has its slots
	// long before they open for booking (07:00 by default).
	GenerateInterval time.Duration
	// ReconcileInterval is how often the scheduled reconciliation runs
	// (default 5m): the one schedule whose verdict the dashboard and the
	// metrics show.
	ReconcileInterval time.Duration
	// NotifyWorkers bounds concurrent deliveries (default 10).
	NotifyWorkers int
	// RescueAfter is how long a job may run before it is taken for dead
	// and retried (default DefaultRescueAfter).
	RescueAfter time.Duration
	// fetchPollInterval overrides River's job polling interval (tests).
	fetchPollInterval time.Duration
}

// Runner is the running (or ready) River client with slotd's workers.
type Runner struct {
	client interface {
		Start(ctx context.Context) error
		Stop(ctx context.Context) error
		StopAndCancel(ctx context.Context) error
	}
	// jobsLeft counts jobs of the given kinds not yet finished (tests).
	jobsLeft func(ctx context.Context, kinds ...string) (int, error)
	// jobsFinished counts jobs of the given kinds finished: completed,
	// cancelled or discarded (tests: how many passes or deliveries ran).
	jobsFinished func(ctx context.Context, kinds ...string) (int, error)
	backlog      func(ctx context.Context) (int, error)
	work         *workers
}

// Start builds the Runner (see New) and starts working jobs.
func Start[TTx any](ctx context.Context, h Host[TTx], out *Outbox[TTx], cfg Config) (*Runner, error) {
	r, err := New(h, out, cfg)
	if err != nil {
		return nil, err
	}
	if err := r.Start(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// New builds the River client on h's driver with slotd's workers and
// periodic jobs and binds out, the outbox h was opened with, to it, but
// does not start working: until Start, state changes still enqueue their
// notifications, which wait in the job table.
func New[TTx any](h Host[TTx], out *Outbox[TTx], cfg Config) (*Runner, error) {
	if h == nil || out == nil {
		return nil, errors.New("jobs: a store and its outbox are required")
	}
	if cfg.Notifier == nil {
		return nil, errors.New("jobs: a Notifier is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ExpiryInterval <= 0 {
		cfg.ExpiryInterval = DefaultExpiryInterval
	}
	if cfg.GenerateInterval <= 0 {
		cfg.GenerateInterval = DefaultGenerateInterval
	}
	if cfg.ReconcileInterval <= 0 {
		cfg.ReconcileInterval = DefaultReconcileInterval
	}
	if cfg.NotifyWorkers <= 0 {
		cfg.NotifyWorkers = DefaultNotifyWorkers
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = DefaultRescueAfter
	}
	if cfg.Service == nil {
		return nil, errors.New("jobs: a Service is required")
	}
	w := &workers{store: h, svc: cfg.Service, notifier: cfg.Notifier, logger: cfg.Logger,
		sends: make(chan struct{}, cfg.NotifyWorkers)}
	rcfg := riverConfig(cfg, w)

	return newRunner(h, out, rcfg, w)
}

// riverConfig is the River configuration shared by both drivers.
func riverConfig(cfg Config, w *workers) *river.Config {
	ws := river.NewWorkers()
	river.AddWorker(ws, &notifyWorker{w: w})
	river.AddWorker(ws, &notifyBatchWorker{w: w})
	river.AddWorker(ws, &expireWorker{w: w})
	river.AddWorker(ws, &noShowWorker{w: w})
	river.AddWorker(ws, &generateWorker{w: w})
	river.AddWorker(ws, &reconcileWorker{w: w})
	river.AddWorker(ws, &offerWorker{w: w})
	river.AddWorker(ws, &reminderWorker{w: w})
	river.AddWorker(ws, &leftoverWorker{w: w})
	river.AddWorker(ws, &refundWorker{w: w})

	// A periodic job is not enqueued again while the previous one is still
	// waiting or running, so a slow pass never piles up copies of itself.
	once := &river.UniqueOpts{ByState: []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
		rivertype.JobStateRetryable, rivertype.JobStateScheduled,
	}}
	periodic := func(id string, every time.Duration, onStart bool, args river.JobArgs) *river.PeriodicJob {
		return river.NewPeriodicJob(river.PeriodicInterval(every),
			func() (river.JobArgs, *river.InsertOpts) {
				return args, &river.InsertOpts{Queue: QueueMaintenance, UniqueOpts: *once}
			},
			&river.PeriodicJobOpts{ID: id, RunOnStart: onStart})
	}
	return &river.Config{
		// River reports its routine (queue statistics every few seconds)
		// at Info; only its warnings and errors belong in slotd's log.
		Logger:            slog.New(minLevel{cfg.Logger.Handler(), slog.LevelWarn}),
		Workers:           ws,
		FetchPollInterval: cfg.fetchPollInterval,
		// River's default is an hour: a batch of messages whose process
		// died mid-delivery would wait that long.
		RescueStuckJobsAfter: cfg.RescueAfter,
		Queues: map[string]river.QueueConfig{
			QueueMaintenance: {MaxWorkers: 2},
			QueueNotify:      {MaxWorkers: cfg.NotifyWorkers},
			QueueRefunds:     {MaxWorkers: 2},
		},
		PeriodicJobs: []*river.PeriodicJob{
			periodic("expire-holds", cfg.ExpiryInterval, true, ExpireArgs{}),
			// A minute late at most is soon enough for a no-show.
			periodic("mark-no-shows", NoShowInterval, true, NoShowArgs{}),
			// The pass at start and every hour generates each schedule's
			// days after its generated-through mark: the new day, or the
			// days missed while down; nothing when nothing is due. Edits
			// and lifted closures generate their own days (booking), so no
			// full pass over every schedule's window runs beside bookings.
			periodic("generate-slots", cfg.GenerateInterval, true, GenerateArgs{}),
			periodic("reconcile", cfg.ReconcileInterval, true, ReconcileArgs{}),
			periodic("send-reminders", ReminderInterval, true, ReminderArgs{}),
			periodic("offer-leftovers", LeftoverInterval, true, LeftoverArgs{}),
		},
	}
}

// minLevel drops records below min before they reach the wrapped handler.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h.Handler.WithAttrs(as), h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h.Handler.WithGroup(name), h.min}
}

// newRunner builds the River client on h's driver and binds it to out,
// the store's transactional outbox: the jobs are inserted on the very
// transaction of the state change.
func newRunner[TTx any](h Host[TTx], out *Outbox[TTx], rcfg *river.Config, w *workers) (*Runner, error) {
	c, err := river.NewClient(h.RiverDriver(), rcfg)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	out.client.Store(c)
	count := func(ctx context.Context, kinds []string, states ...rivertype.JobState) (int, error) {
		res, err := c.JobList(ctx, river.NewJobListParams().Kinds(kinds...).First(10000).States(states...))
		if err != nil {
			return 0, err
		}
		return len(res.Jobs), nil
	}
	left := func(ctx context.Context, kinds ...string) (int, error) {
		return count(ctx, kinds, rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled)
	}
	finished := func(ctx context.Context, kinds ...string) (int, error) {
		return count(ctx, kinds, rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded)
	}
	backlog := func(ctx context.Context) (int, error) {
		p := river.NewJobListParams().First(10000).States(rivertype.JobStateAvailable, rivertype.JobStateRetryable)
		res, err := c.JobList(ctx, p)
		if err != nil {
			return 0, err
		}
		return len(res.Jobs), nil
	}
	return &Runner{client: c, jobsLeft: left, jobsFinished: finished, backlog: backlog, work: w}, nil
}

// Backlog counts the jobs waiting to be worked now (available or to be
// retried), up to 10000: what the job-backlog alert watches.
func (r *Runner) Backlog(ctx context.Context) (int, error) { return r.backlog(ctx) }

// Start starts working jobs. The client runs until Stop: it deliberately
// does not end with ctx, because on a signal the HTTP server must finish
// its requests (which enqueue notifications) before the workers stop.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	return nil
}

// Stop stops fetching jobs and waits for the running ones to finish; if ctx
// ends first, it cancels them (they are retried later, by this or another
// instance) and waits for them to return.
func (r *Runner) Stop(ctx context.Context) error {
	err := r.client.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return r.client.StopAndCancel(cctx)
	}
	return err
}

// ExpireHolds runs one expiry pass now (the periodic job's work) and
// reports how many holds it expired.
func (r *Runner) ExpireHolds(ctx context.Context) (int, error) {
	return r.work.expire(ctx)
}

// GenerateSlots runs one rolling-generation pass now (full: the whole
// window; otherwise the days after each schedule's mark) and reports how many slots it created.
func (r *Runner) GenerateSlots(ctx context.Context, full bool) (int, error) {
	return r.work.generate(ctx, full)
}

// sqlInsertJob writes one job row as River's InsertManyTx does (River's
// river_job, pinned by the River version in go.mod and migrated by
// MigrateRiver) and wakes the queue's producers the way River's client
// does, so the job is fetched at once rather than at the next poll.
const sqlInsertJob = `WITH j AS (
		INSERT INTO river_job (args, kind, max_attempts, queue, priority, state, scheduled_at, metadata, tags)
		VALUES ($1::jsonb, $2::text, $3::smallint, $4::text, 1, 'available', now(), '{}', '{}') RETURNING queue)
	SELECT pg_notify(coalesce(current_schema(), 'public') || '.river_insert', json_build_object('queue', j.queue)::text) FROM j`

// OutboxStatement is enqueueParams as one statement, for a store whose
// booking batch sends its job row in its commit pipeline
// (postgres.Options.OutboxStatement): the same job (one
// notification, or one batch of them) with River's defaults.
func OutboxStatement(ns []booking.Notification) (string, []any, error) {
	p := enqueueParams(ns)[0]
	args, err := json.Marshal(p.Args)
	if err != nil {
		return "", nil, err
	}
	return sqlInsertJob, []any{string(args), p.Args.Kind(), int16(river.MaxAttemptsDefault), QueueNotify}, nil
}

// enqueueParams is what a state change's transaction inserts: one
// notification job, or one batch job for several (see NotifyBatchArgs).
func enqueueParams(ns []booking.Notification) []river.InsertManyParams {
	var ps []river.InsertManyParams
	args := make([]NotifyArgs, 0, len(ns))
	for _, n := range ns {
		if n.Kind == booking.NotifyOfferDue {
			// Not a message: the waitlist's offer job for the slot.
			ps = append(ps, river.InsertManyParams{Args: OfferArgs{SlotID: n.SlotID}})
			continue
		}
		if n.Kind == booking.NotifyRefundDue {
			// Not a message: the refund's job.
			ps = append(ps, river.InsertManyParams{Args: RefundArgs{RefundID: n.RefundID}})
			continue
		}
		args = append(args, NotifyArgs{Notification: n.Kind, AppointmentID: n.AppointmentID, SuspensionID: n.SuspensionID, Ref: n.Ref, RefundID: n.RefundID})
	}
	switch len(args) {
	case 0:
	case 1:
		ps = append(ps, river.InsertManyParams{Args: args[0]})
	default:
		ps = append(ps, river.InsertManyParams{Args: NotifyBatchArgs{Notifications: args}})
	}
	return ps
}
