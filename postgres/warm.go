package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slotd/slotd/booking"
)

// warmConn readies a new connection for an opening before the pool hands
// it out (Options.WarmConns): the booking batch's statements and the
// gates' look-ups (the refused requests' keys, a slot at its first
// request) are run once against no slot in a transaction that is rolled
// back. That prepares each in the connection's statement cache (pgx's
// Parse and Describe round trip), builds and keeps its generic plan (the
// batch runs under force_generic_plan, queueReads) and loads the backend's
// catalog caches for appointments and its indexes. Without it the first
// batches of an opening paid all that on connections the pool was still
// opening, in the seconds when the most requests were waiting.
//
// A failure (a database not migrated yet) leaves the connection cold but
// usable: the error is returned only when the connection could not be
// brought back out of the transaction.
//
// outbox is Options.OutboxStatement: the job row it writes is rolled back
// with the rest (and so is the wake-up it sends).
func warmConn(outbox func(ns []booking.Notification) (string, []any, error)) func(context.Context, *pgx.Conn) error {
	return func(ctx context.Context, c *pgx.Conn) error { return warm(ctx, c, outbox) }
}

// warm is warmConn's work on one connection.
func warm(ctx context.Context, c *pgx.Conn, outbox func(ns []booking.Notification) (string, []any, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	now := time.Now()
	reqs := []booking.BookRequest{{PatientID: 0, SlotID: 0, IdempotencyKey: "warm"}}
	b := &pgx.Batch{}
	b.Queue(sqlBegin)
	// A Store's zero value queues the locked reads (not the racy knob's).
	(&Store{}).queueReads(b, 0, reqs, now)
	// The write that matches no slot inserts nothing.
	b.Queue(sqlTake, int64(0), int32(1), now, string(booking.StatusBooked), (*time.Time)(nil),
		[]int64{0}, []int32{1}, []string{"warm"}, []string{""}, []int64{0})
	queueAudit(b) // no entries: inserts no row
	if outbox != nil {
		if q, args, err := outbox([]booking.Notification{{Kind: booking.NotifyConfirmation}}); err == nil {
			b.Queue(q, args...)
		}
	}
	b.Queue(sqlByKeysOrHolding, []int64{0}, []string{"warm"}, []int64{0})
	b.Queue(sqlGetSlot, int64(0))
	b.Queue("ROLLBACK")
	_ = c.SendBatch(ctx, b).Close()
	if c.PgConn().TxStatus() != 'I' {
		if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
			return err
		}
	}
	return nil
}

// warmPool opens n connections at once (each warmed by warmConn) and
// returns them to the pool, so that an opening finds them established.
func (s *Store) warmPool(ctx context.Context, n int) error {
	conns := make(chan *pgxpool.Conn, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			c, err := s.pool.Acquire(ctx)
			if err != nil {
				errs <- err
				return
			}
			conns <- c
		}()
	}
	var first error
	held := make([]*pgxpool.Conn, 0, n)
	for range n {
		select {
		case c := <-conns:
			held = append(held, c)
		case err := <-errs:
			if first == nil {
				first = err
			}
		}
	}
	for _, c := range held {
		c.Release()
	}
	return first
}
