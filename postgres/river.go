package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// What jobs and serve need of the store besides booking.Store: River's
// driver and migrations on this database, a transaction for River's own
// writes, and the pool's statistics. The store owns its River driver so that
// no other package has to name a concrete store.

// RiverDriver is River's pgx driver on the store's pool, so that River's
// inserts can join the store's transactions (Options.Enqueue).
func (s *Store) RiverDriver() riverdriver.Driver[pgx.Tx] { return riverpgxv5.New(s.pool) }

// InTx runs fn in one transaction on the pool and commits it when fn
// returns nil. It is for River's own writes (jobs that complete themselves
// while inserting others); errors come back as River or pgx gave them.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// MigrateRiver applies River's own migrations (its job, leader and queue
// tables); run it after Migrate. It is idempotent, and a session advisory
// lock lets several instances start at once: the later ones wait, then
// find nothing to do.
func (s *Store) MigrateRiver(ctx context.Context) error {
	m, err := rivermigrate.New(riverpgxv5.New(s.pool), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("postgres: river migrate: %w", err)
	}
	// River's migrations cannot share one transaction (a later one uses an
	// enum value an earlier one adds), so the lock is a session lock on a
	// connection of its own, held while they run.
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return translate(fmt.Errorf("postgres: river migrate: %w", err), "")
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('slotd:river-migrate'))`); err != nil {
		return translate(fmt.Errorf("postgres: river migrate: lock: %w", err), "")
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('slotd:river-migrate'))`)
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("postgres: river migrate: %w", err)
	}
	return nil
}

// PoolStats reports the pool's use in database/sql's terms, the form the
// metrics read from either store. WaitDuration is the time acquires spent
// waiting because every connection was busy.
func (s *Store) PoolStats() sql.DBStats {
	st := s.pool.Stat()
	return sql.DBStats{
		MaxOpenConnections: int(st.MaxConns()),
		OpenConnections:    int(st.TotalConns()),
		InUse:              int(st.AcquiredConns()),
		Idle:               int(st.IdleConns()),
		WaitCount:          st.EmptyAcquireCount(),
		WaitDuration:       st.EmptyAcquireWaitTime(),
		MaxIdleTimeClosed:  st.MaxIdleDestroyCount(),
		MaxLifetimeClosed:  st.MaxLifetimeDestroyCount(),
	}
}
