package service

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/booking"
)

// SeriesBatchObserver is what an Options.Observer may also implement to
// see the series' group commit: each transaction that decided a batch of
// series, its size and how long it took.
type SeriesBatchObserver interface {
	SeriesBatch(size int, took time.Duration)
}

// seriesBatcher is the series' group commit. A single booking is decided
// in its slot's lane with the other requests of that moment; a series
// spans several slots, so it has no lane: the series waiting at the same
// moment are instead decided together, in one transaction and one commit
// (Store.BookSeriesBatch), each still all or nothing. A batch forms from
// the series that queue while the one before commits, so a lone series
// waits for nothing; at most depth batches are decided at once (the lanes'
// Depth: one on SQLite, whose writes are serialized anyway).
type seriesBatcher struct {
	decide func(ctx context.Context, rs []booking.SeriesRequest) ([]booking.SeriesAnswer, error)
	queue  chan *seriesWaiter
	depth  int

	mu      sync.Mutex
	running int
}

type seriesWaiter struct {
	req  booking.SeriesRequest
	done chan booking.SeriesAnswer
	// state hands the request over exactly once: queued, then taken into
	// a batch (which answers it) or abandoned by its caller (never
	// decided).
	state atomic.Int32
}

const (
	waiterQueued int32 = iota
	waiterTaken
	waiterAbandoned
)

func newSeriesBatcher(depth int, decide func(context.Context, []booking.SeriesRequest) ([]booking.SeriesAnswer, error)) *seriesBatcher {
	return &seriesBatcher{decide: decide, queue: make(chan *seriesWaiter, campaignWaiting), depth: max(depth, 1)}
}

// submit queues r and waits for its answer, or answers overloaded at once
// when too many series wait already. A request whose ctx ends while it is
// still queued is answered ctx's error and never decided; once its batch
// has taken it, it waits for the batch's answer (the batch is bounded by
// the service's timeout): a series is never answered unavailable while it
// may still be booked.
func (b *seriesBatcher) submit(ctx context.Context, r booking.SeriesRequest) (booking.SeriesResult, error) {
	w := &seriesWaiter{req: r, done: make(chan booking.SeriesAnswer, 1)}
	select {
	case b.queue <- w:
	default:
		return booking.SeriesResult{}, overloaded()
	}
	b.mu.Lock()
	if b.running < b.depth {
		b.running++
		go b.run()
	}
	b.mu.Unlock()
	select {
	case a := <-w.done:
		return a.Result, a.Err
	case <-ctx.Done():
		if w.state.CompareAndSwap(waiterQueued, waiterAbandoned) {
			return booking.SeriesResult{}, ctx.Err()
		}
		a := <-w.done
		return a.Result, a.Err
	}
}

// run decides what has queued, a batch at a time, and ends once nothing
// waits.
func (b *seriesBatcher) run() {
	for {
		batch := b.take()
		if len(batch) == 0 {
			b.mu.Lock()
			if len(b.queue) == 0 {
				b.running--
				b.mu.Unlock()
				return
			}
			b.mu.Unlock()
			continue
		}
		b.decideBatch(batch)
	}
}

// take takes what has queued, up to booking.MaxSeriesBatch, leaving out
// the requests whose caller has given up.
func (b *seriesBatcher) take() []*seriesWaiter {
	var batch []*seriesWaiter
	for len(batch) < booking.MaxSeriesBatch {
		select {
		case w := <-b.queue:
			if !w.state.CompareAndSwap(waiterQueued, waiterTaken) {
				continue
			}
			batch = append(batch, w)
			continue
		default:
		}
		break
	}
	return batch
}

// decideBatch decides one batch and answers each waiter its own answer.
func (b *seriesBatcher) decideBatch(batch []*seriesWaiter) {
	rs := make([]booking.SeriesRequest, len(batch))
	for k, w := range batch {
		rs[k] = w.req
	}
	out, err := b.decide(context.Background(), rs)
	if err == nil && len(out) != len(rs) {
		err = fmt.Errorf("store answered %d series for %d", len(out), len(rs))
	}
	for k, w := range batch {
		if err != nil {
			w.done <- booking.SeriesAnswer{Err: err}
			continue
		}
		w.done <- out[k]
	}
}

// decideSeries runs one store transaction for a batch of series, bounded
// by the service's timeout; the answers' errors are classified as a
// single series' are.
func (s *Service) decideSeries(ctx context.Context, rs []booking.SeriesRequest) ([]booking.SeriesAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	out, err := s.store.BookSeriesBatch(ctx, rs, s.now())
	if o, ok := s.observer.(SeriesBatchObserver); ok {
		o.SeriesBatch(len(rs), time.Since(start))
	}
	if err != nil {
		return nil, s.storeErr(ctx, err)
	}
	for k := range out {
		if out[k].Err != nil {
			out[k].Err = s.storeErr(ctx, out[k].Err)
		}
	}
	return out, nil
}
