package service

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"go.opentelemetry.io/otel/trace"
)

// LaneOptions bound the group-commit lanes.
type LaneOptions struct {
	// MaxBatch is the most requests decided in one transaction (default 128).
	MaxBatch int
	// MaxWait is how long a lane waits for more requests after the first one
	// before deciding (default 0: batches form only from requests that queue
	// while the previous batch commits, so a lone request waits for nothing).
	MaxWait time.Duration
	// MaxQueue bounds the requests waiting in one lane; beyond it requests
	// are refused with CodeOverloaded (default 1024).
	MaxQueue int
	// MaxPending bounds the requests waiting in all lanes together (default 20000).
	MaxPending int
	// Idle is how long an empty lane lives before its goroutine ends (default 2s).
	Idle time.Duration
	// MaxLanes bounds the lanes alive at once (default 4096). A request for
	// a slot without a lane when all are taken is decided on its own, as the
	// direct engine does: lanes pay off on hot slots, and a flood of
	// distinct cold slots must not grow memory without bound.
	MaxLanes int
	// Depth is how many batches of one lane are decided at once (default
	// 1). At 2 the next batch is already sent, on a connection of its own,
	// and waits for the slot's row lock while the current one commits, so
	// the lock passes from one to the next without a round trip to the
	// application in between. Answers stay in arrival order: a batch
	// answers only after the one before it has.
	Depth int
}

// lanes coalesces concurrent booking requests for the same slot into one
// store transaction: one slot-row lock and one commit per batch instead of
// one per request. Each slot has at most one lane per process, so the
// process never contends with itself for a slot row; other processes still
// do, and the database decides between them.
type lanes struct {
	opts   LaneOptions
	decide func(ctx context.Context, slotID int64, reqs []booking.BookRequest) ([]booking.BookResult, error)

	mu      sync.Mutex
	bySlot  map[int64]*lane
	pending int
}

type lane struct {
	slotID int64
	queue  chan *waiter
}

type waiter struct {
	req  booking.BookRequest
	done chan booking.BookResult
	// span is the request's booking span: the lane records on it how long
	// the request waited, the size of its batch and the decision's time.
	span   trace.Span
	queued time.Time
	// do, when set, is another change of the slot (a reschedule into it)
	// that the lane runs on its own between batches, instead of req.
	do func(ctx context.Context) booking.BookResult
}

func newLanes(opts LaneOptions, decide func(context.Context, int64, []booking.BookRequest) ([]booking.BookResult, error)) *lanes {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 128
	}
	if opts.MaxQueue <= 0 {
		opts.MaxQueue = 1024
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = 20000
	}
	if opts.Idle <= 0 {
		opts.Idle = 2 * time.Second
	}
	if opts.MaxLanes <= 0 {
		opts.MaxLanes = 4096
	}
	if opts.Depth <= 0 {
		opts.Depth = 1
	}
	return &lanes{opts: opts, decide: decide, bySlot: map[int64]*lane{}}
}

// submit queues req in its slot's lane and waits for its answer. A full
// lane or too many pending requests answer CodeOverloaded at once rather
// than letting latency grow without bound. It reports false, without an
// answer, when the slot has no lane and no new one may start (MaxLanes).
func (l *lanes) submit(ctx context.Context, slotID int64, req booking.BookRequest) (booking.BookResult, bool) {
	r, laned, _ := l.submitLate(ctx, slotID, req)
	return r, laned
}

// submitLate is submit that also returns, when ctx ended while the request
// was still queued or being decided, the channel on which its decision
// will still arrive (nil otherwise): until then a retry must not be
// decided beside it.
func (l *lanes) submitLate(ctx context.Context, slotID int64, req booking.BookRequest) (booking.BookResult, bool, <-chan booking.BookResult) {
	w := &waiter{req: req, done: make(chan booking.BookResult, 1), span: trace.SpanFromContext(ctx), queued: time.Now()}
	r, laned := l.enqueue(ctx, slotID, w, true)
	if laned && r.Err != nil && ctx.Err() != nil && errors.Is(r.Err, ctx.Err()) {
		return r, true, w.done
	}
	return r, laned, nil
}

// through runs do in the slot's lane when the slot has one (it is hot: its
// bookings are being batched), so that the change queues with them instead
// of contending for the slot's row; it reports false, having run nothing,
// when the slot has no lane.
func (l *lanes) through(ctx context.Context, slotID int64, do func(ctx context.Context) booking.BookResult) (booking.BookResult, bool) {
	return l.enqueue(ctx, slotID, &waiter{do: do, done: make(chan booking.BookResult, 1)}, false)
}

func (l *lanes) enqueue(ctx context.Context, slotID int64, w *waiter, start bool) (booking.BookResult, bool) {
	l.mu.Lock()
	if l.pending >= l.opts.MaxPending {
		l.mu.Unlock()
		return booking.BookResult{Err: overloaded()}, true
	}
	ln := l.bySlot[slotID]
	if ln == nil && (!start || len(l.bySlot) >= l.opts.MaxLanes) {
		l.mu.Unlock()
		return booking.BookResult{}, false
	}
	if ln == nil {
		ln = &lane{slotID: slotID, queue: make(chan *waiter, l.opts.MaxQueue)}
		l.bySlot[slotID] = ln
		go l.run(ln)
	}
	select {
	case ln.queue <- w:
		l.pending++
	default:
		l.mu.Unlock()
		return booking.BookResult{Err: overloaded()}, true
	}
	l.mu.Unlock()

	select {
	case r := <-w.done:
		return r, true
	case <-ctx.Done():
		// The request stays in its batch and may still be decided; a retry
		// with the same Idempotency-Key then finds the outcome.
		return booking.BookResult{Err: ctx.Err()}, true
	}
}

func overloaded() *booking.Error {
	return &booking.Error{Code: booking.CodeOverloaded, Message: "too many booking requests are waiting; retry shortly", RetryAfter: time.Second}
}

// QueueDepth returns the number of requests waiting in all lanes.
func (l *lanes) QueueDepth() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending
}

// run is a lane's goroutine: take what has queued (up to MaxBatch), hand it
// to a decision of its own (at most Depth at once), repeat; end when idle
// with nothing in flight.
func (l *lanes) run(ln *lane) {
	idle := time.NewTimer(l.opts.Idle)
	defer idle.Stop()
	slots := make(chan struct{}, l.opts.Depth) // one token per batch in flight
	prev := make(chan struct{})                // closed once the previous batch has answered
	close(prev)
	for {
		// A place in flight first: requests queue (and the queue's bound
		// holds) while every place is taken.
		slots <- struct{}{}
		var first *waiter
		select {
		case first = <-ln.queue:
		case <-idle.C:
			<-slots
			l.mu.Lock()
			if len(ln.queue) == 0 && len(slots) == 0 {
				delete(l.bySlot, ln.slotID)
				l.mu.Unlock()
				return
			}
			l.mu.Unlock()
			idle.Reset(l.opts.Idle)
			continue
		}
		batch := l.fill(ln, append(make([]*waiter, 0, l.opts.MaxBatch), first))
		l.mu.Lock()
		l.pending -= len(batch)
		l.mu.Unlock()
		done := make(chan struct{})
		go l.decideBatch(ln.slotID, batch, prev, done, slots)
		prev = done
		idle.Reset(l.opts.Idle) // since Go 1.23 Reset discards a stale expiry
	}
}

// decideBatch decides one batch and answers its waiters once the batch
// before it (prev) has answered: each waiter gets its own batch's result,
// never another's, even when a batch fails.
func (l *lanes) decideBatch(slotID int64, batch []*waiter, prev <-chan struct{}, done chan<- struct{}, slots <-chan struct{}) {
	defer func() { <-slots }()
	defer close(done)
	var reqs []booking.BookRequest
	var books, others []*waiter
	for _, w := range batch {
		if w.do != nil {
			others = append(others, w)
			continue
		}
		books = append(books, w)
		reqs = append(reqs, w.req)
	}
	var res []booking.BookResult
	var err error
	picked := time.Now()
	if len(reqs) > 0 {
		res, err = l.decide(context.Background(), slotID, reqs)
	}
	took := time.Since(picked)
	// The other changes (reschedules into the slot) run after the batch's
	// decision, one at a time, in this batch's turn.
	answers := make([]booking.BookResult, len(others))
	for i, w := range others {
		answers[i] = w.do(context.Background())
	}
	<-prev
	for i, w := range others {
		w.done <- answers[i]
	}
	for i, w := range books {
		if w.span.IsRecording() {
			w.span.SetAttributes(spanBatch(picked.Sub(w.queued), len(books), took)...)
		}
		switch {
		case err != nil:
			w.done <- booking.BookResult{Err: err}
		case i < len(res):
			w.done <- res[i]
		default:
			w.done <- booking.BookResult{Err: booking.Errorf(booking.CodeInternal, "no answer for request %d of the batch", i)}
		}
	}
}

// fill adds to batch what is already queued, waiting up to MaxWait for more
// when it is set.
func (l *lanes) fill(ln *lane, batch []*waiter) []*waiter {
	var deadline <-chan time.Time
	if l.opts.MaxWait > 0 {
		t := time.NewTimer(l.opts.MaxWait)
		defer t.Stop()
		deadline = t.C
	}
	for len(batch) < l.opts.MaxBatch {
		select {
		case w := <-ln.queue:
			batch = append(batch, w)
			continue
		default:
		}
		if deadline == nil {
			return batch
		}
		select {
		case w := <-ln.queue:
			batch = append(batch, w)
		case <-deadline:
			return batch
		}
	}
	return batch
}
