package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// What jobs and serve need of the store besides booking.Store: River's
// driver and migrations on this database, a transaction for River's own
// writes, and the writer's statistics. The store owns its River driver so
// that no other package has to name a concrete store.

// RiverDriver is River's SQLite driver on the store's single writer
// connection, as River recommends: job writes queue behind the bookings
// like every other write instead of failing with SQLITE_BUSY, and they can
// join the store's transactions (Options.Enqueue).
func (s *Store) RiverDriver() riverdriver.Driver[*sql.Tx] { return riversqlite.New(s.writer) }

// InTx runs fn in one write transaction (BEGIN IMMEDIATE on the writer) and
// commits it when fn returns nil. It is for River's own writes (jobs that
// complete themselves while inserting others); errors come back unmapped.
func (s *Store) InTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.write(ctx, fn)
}

// MigrateRiver applies River's own migrations (its job, leader and queue
// tables) through the writer; run it after Migrate. It is idempotent.
func (s *Store) MigrateRiver(ctx context.Context) error {
	m, err := rivermigrate.New(riversqlite.New(s.writer), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("sqlite: river migrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("sqlite: river migrate: %w", err)
	}
	return nil
}

// PoolStats reports the writer's use (one connection: every write waits
// for it); the reader pool never makes a request wait behind a write.
func (s *Store) PoolStats() sql.DBStats { return s.writer.Stats() }
