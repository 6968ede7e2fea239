// Package sqlite is slotd's embedded booking.Store on a single SQLite file
// (modernc.org/sqlite: pure Go, so the binary builds with CGO_ENABLED=0).
//
// Concurrency model: SQLite allows one writer at a time, so the store says so
// up front. Every write goes through one writer *sql.DB limited to a single
// connection whose transactions start with BEGIN IMMEDIATE: writes queue in
// the Go pool (cheap, cancellable by context) instead of spinning on
// SQLITE_BUSY, and the write lock is taken at BEGIN, so a transaction never
// has to upgrade a read lock and fail half-way. Reads go through a separate
// pool of read-only connections that, thanks to WAL, see the last committed
// state without waiting for the writer.
//
// The booking decision is PostgreSQL's, the one of package booking
// (booking.DecideBooking), performed as a conditional update of the slot's
// counter inside the write transaction, with CHECKs and partial unique
// indexes as the last line of defence.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/pii"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is a booking.Store on one SQLite file.
type Store struct {
	path   string
	keys   *pii.Keys // seal the patients' personal data (pii.go)
	writer *sql.DB   // one connection: every write transaction, serialized
	reader *sql.DB   // read-only pool for everything that does not write

	// racy makes Book read-then-write, for the conformance suite's proof
	// that its stress test catches races. Tests only (export_test.go).
	racy bool

	// enqueue is Options.Enqueue.
	enqueue func(ctx context.Context, tx *sql.Tx, ns []booking.Notification) error

	// stmts holds Book's statements prepared on the writer.
	stmts stmtCache
}

// enqueueError is a failure of the enqueuer. It is kept apart from the
// store's own errors so that Book does not mistake a constraint violation
// in the outbox for one of its own and retry request by request.
type enqueueError struct{ err error }

func (e *enqueueError) Error() string { return "sqlite: enqueue notifications: " + e.err.Error() }
func (e *enqueueError) Unwrap() error { return e.err }

// notify hands ns to the enqueuer inside tx, if there is both an
// enqueuer and something to enqueue. (The domain events need no writing:
// they are the audit entries, events.go.)
func (s *Store) notify(ctx context.Context, tx *sql.Tx, ns []booking.Notification) error {
	if s.enqueue == nil || len(ns) == 0 {
		return nil
	}
	if err := s.enqueue(ctx, tx, ns); err != nil {
		return &enqueueError{err}
	}
	return nil
}

// pragmas are set on every connection through the DSN, so that a connection
// the pool opens later is configured like the first. busy_timeout covers
// other processes on the same file; in-process writers queue in the pool.
// synchronous(FULL): in WAL mode NORMAL may lose a committed transaction on
// power loss or an OS crash, and an answered booking must survive both; the
// group commit of a batch amortizes the extra fsync.
const pragmas = "_pragma=busy_timeout(5000)&_pragma=foreign_keys(ON)" +
	"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"

// dsn builds a modernc.org/sqlite DSN. The path is given without the
// "file:" prefix so that the driver strips the query itself and the path is
// taken literally rather than as a URI.
func dsn(path, extra string) string {
	return path + "?" + pragmas + extra
}

// Open opens (creating it and its directory if needed) the database file at
// path, with the data keys of the key file beside it (KeyFileOf, created
// with fresh keys, mode 0600, when missing). It does not migrate; call
// Migrate or (*Store).Migrate for that.
func Open(ctx context.Context, path string) (*Store, error) { return OpenKeys(ctx, path, nil) }

// Options configure OpenWith.
type Options struct {
	// Keys seal the patients' personal data; nil: the key file's.
	Keys *pii.Keys
	// Enqueue is the store's outbox: every write transaction that changes
	// an appointment's state calls it with that transaction and the
	// notifications the change announces, before commit, and only when
	// there is something to announce (docs/contracts/lifecycle.md lists
	// which). It must write through tx and nothing else, so that a
	// notification exists exactly when its state change committed; an
	// error from it rolls the change back. A job queue's driver (River's
	// riversqlite) can insert its jobs through tx because tx is on DB(),
	// the writer. nil enqueues nothing.
	Enqueue func(ctx context.Context, tx *sql.Tx, ns []booking.Notification) error
	// Events says a relay publishes the domain events (events.go): OpenWith
	// starts its cursor when none has started.
	Events bool
	// Warm readies the store for an opening before OpenWith returns: Book's
	// statements prepared on the writer (which its first call would
	// otherwise do, stmtcache.go) and every reader connection opened
	// (instead of at the first reads). serve sets it (--db-warm-conns);
	// it needs a migrated database, and on one that is not it is a no-op
	// for the statements.
	Warm bool
}

// OpenKeys is Open with the data keys given (nil: the key file's).
func OpenKeys(ctx context.Context, path string, keys *pii.Keys) (*Store, error) {
	return OpenWith(ctx, path, Options{Keys: keys})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, opts Options) (*Store, error) {
	keys := opts.Keys
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	if keys == nil {
		var err error
		if keys, err = pii.LoadOrCreate(KeyFileOf(path)); err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create directory: %w", err)
		}
	}
	writer, err := sql.Open("sqlite", dsn(path, "&_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open writer: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	// The writer connects first: it creates the file and switches it to
	// WAL, which the read-only connections cannot do.
	if err := writer.PingContext(ctx); err != nil {
		writer.Close()
		return nil, mapErr(fmt.Errorf("sqlite: open writer: %w", err), "")
	}

	readers := min(max(runtime.NumCPU(), 4), 8)
	reader, err := sql.Open("sqlite", dsn(path, "&_query_only=1"))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open reader: %w", err)
	}
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers)
	reader.SetConnMaxLifetime(0)
	reader.SetConnMaxIdleTime(0)
	if err := reader.PingContext(ctx); err != nil {
		writer.Close()
		reader.Close()
		return nil, mapErr(fmt.Errorf("sqlite: open reader: %w", err), "")
	}
	s := &Store{path: path, keys: keys, writer: writer, reader: reader, enqueue: opts.Enqueue}
	if opts.Events {
		if err := s.StartEvents(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	if opts.Warm {
		s.stmts.prepare(ctx, writer)
		if err := openAll(ctx, reader, readers); err != nil {
			s.Close()
			return nil, mapErr(fmt.Errorf("sqlite: open readers: %w", err), "")
		}
	}
	return s, nil
}

// openAll opens n connections of db at once and returns them to its idle
// pool (which keeps them: SetMaxIdleConns(n), no idle timeout).
func openAll(ctx context.Context, db *sql.DB, n int) error {
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		if err := c.PingContext(ctx); err != nil {
			c.Close()
			return err
		}
		conns = append(conns, c)
	}
	return nil
}

// Migrate applies the embedded schema migrations to the database at path,
// creating it if needed.
func Migrate(ctx context.Context, path string) error {
	s, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Migrate(ctx)
}

// Migrate applies the embedded schema migrations (goose, dialect sqlite3)
// through the writer connection, 00016 sealing existing personal data with
// the store's keys, then checks the keys against the database (a lost or
// wrong key is an error).
func (s *Store) Migrate(ctx context.Context) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	converted := 0
	p, err := goose.NewProvider(goose.DialectSQLite3, s.writer, fsys, goose.WithGoMigrations(migrateSeal(s.keys, &converted)))
	if err != nil {
		return fmt.Errorf("sqlite: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return mapErr(fmt.Errorf("sqlite: migrate: %w", err), "")
	}
	if converted > 0 {
		if err := s.vacuum(ctx); err != nil {
			return err
		}
	}
	// The data-key check, at every start (pii.CheckKeys decides), in one
	// write transaction.
	if err := s.write(ctx, func(tx *sql.Tx) error { return pii.CheckKeys(ctx, tx, s.keys, insertDataKeySQL) }); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}

// DB returns the writer handle, for tests and tools (reconciliation,
// demo data) that need raw SQL. Its single connection is shared with the
// store's writes: hold it briefly.
func (s *Store) DB() *sql.DB { return s.writer }

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Ping checks that both the writer and the reader pool answer.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.writer.PingContext(ctx); err != nil {
		return mapErr(err, "")
	}
	if err := s.reader.PingContext(ctx); err != nil {
		return mapErr(err, "")
	}
	return nil
}

// Close closes both pools.
func (s *Store) Close() error {
	s.stmts.close()
	rerr := s.reader.Close()
	werr := s.writer.Close()
	if werr != nil {
		return werr
	}
	return rerr
}

// write runs fn in one write transaction (BEGIN IMMEDIATE on the writer)
// and commits it when fn returns nil. Errors come back unmapped.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// ts is the stored form of a time: unix microseconds, UTC.
func ts(t time.Time) int64 { return t.UnixMicro() }

// fromTS is the inverse of ts; times come back in UTC.
func fromTS(v int64) time.Time { return time.UnixMicro(v).UTC() }

// micro rounds t the way the database stores it, so that a value answered
// right after a write equals the one read back later.
func micro(t time.Time) time.Time { return fromTS(ts(t)) }

// nullTS stores an optional time.
func nullTS(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ts(*t)
}

// orNow is t, or the current time when t is zero (created_at columns).
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}
