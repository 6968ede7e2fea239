package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// execer is what *sql.Tx and cachedTx offer for writing.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// stmtCache keeps Book's fixed statements prepared on the writer, so that
// the hot path binds and steps instead of parsing and planning six
// statements per transaction.
//
// The statements are prepared on the *sql.DB, never inside a transaction:
// the writer has a single connection, so preparing through the DB while a
// transaction holds it would wait for itself. prepare therefore runs before
// Book begins its transaction, and a transaction uses them through
// (*sql.Tx).StmtContext, which finds the statement already prepared on its
// connection and reuses it (database/sql re-prepares by itself if the
// connection was ever replaced). SQLite re-plans a prepared statement by
// itself after a schema change (a later migration), so a statement never
// goes stale.
type stmtCache struct {
	mu    sync.Mutex
	ready atomic.Pointer[map[string]*sql.Stmt] // published once, read-only after
	off   bool                                 // tests: measure without the cache
}

// prepare prepares the statements once. A failure (a database not migrated
// yet) leaves the cache empty and Book runs unprepared; the next call tries
// again.
func (c *stmtCache) prepare(ctx context.Context, db *sql.DB) {
	if c.off || c.ready.Load() != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready.Load() != nil {
		return
	}
	m := make(map[string]*sql.Stmt, len(bookSQL))
	for _, q := range bookSQL {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			for _, st := range m {
				st.Close()
			}
			return
		}
		m[q] = st
	}
	c.ready.Store(&m)
}

// in returns tx with the cache in front of it: a statement the cache holds
// runs prepared, any other text runs on tx as usual.
func (c *stmtCache) in(tx *sql.Tx) cachedTx {
	var m map[string]*sql.Stmt
	if p := c.ready.Load(); p != nil && !c.off {
		m = *p
	}
	return cachedTx{tx: tx, m: m}
}

// close releases the prepared statements (the Store is closing).
func (c *stmtCache) close() {
	if p := c.ready.Swap(nil); p != nil {
		for _, st := range *p {
			st.Close()
		}
	}
}

// cachedTx is a write transaction that runs the cache's statements
// prepared. It is a querier and an execer.
type cachedTx struct {
	tx *sql.Tx
	m  map[string]*sql.Stmt
}

func (c cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.m[query]; st != nil {
		return c.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return c.tx.QueryContext(ctx, query, args...)
}

func (c cachedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.m[query]; st != nil {
		return c.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return c.tx.QueryRowContext(ctx, query, args...)
}

func (c cachedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := c.m[query]; st != nil {
		return c.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return c.tx.ExecContext(ctx, query, args...)
}
