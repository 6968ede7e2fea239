package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/accounts"
	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/jobs"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/sqlite"
)

// store is what the commands need of a database, each part declared where
// it is used: the booking store, accounts (web, staff-password), pool
// statistics (metrics) and River's migrations; jobs.New also needs it to be
// a jobs.Host (openServing). This file is the one place that turns a URL into a store, so
// the only one that names the concrete stores.
type store interface {
	booking.Store
	accounts.Store
	poolStats
	// MigrateRiver applies River's own migrations to the database; the
	// store owns its River driver, so it knows how.
	MigrateRiver(ctx context.Context) error
	// Rekey and SealedWith are `slotd rekey`'s (rekey.go).
	Rekey(ctx context.Context, limit int) (int, error)
	SealedWith(ctx context.Context) (map[uint16]int, error)
	// FillNameIndexes hashes the names and birth dates of the people from
	// before migration 00031 (fillNameIndexes).
	FillNameIndexes(ctx context.Context, after int64, limit int) (int64, error)
	// ClinicSettings and SetClinicSettings are the clinic's settings by
	// name, which `slotd init` keeps and serve reads (init.go).
	ClinicSettings(ctx context.Context) (map[string]string, error)
	SetClinicSettings(ctx context.Context, settings map[string]string) error
}

var (
	_ store              = (*postgres.Store)(nil)
	_ jobs.Host[pgx.Tx]  = (*postgres.Store)(nil)
	_ store              = (*sqlite.Store)(nil)
	_ jobs.Host[*sql.Tx] = (*sqlite.Store)(nil)
)

// defaultDB is the embedded default: a SQLite file under ./slotd-data/.
const defaultDB = "sqlite:slotd-data/slotd.db"

// dbFlags are the flags of every command that opens the database.
type dbFlags struct {
	url        string
	maxConns   int
	warmConns  int
	authSecret string
	dataKeys   string
}

func (d *dbFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.url, "db", defaultDB, "database: sqlite:PATH or postgres://…")
	fs.IntVar(&d.maxConns, "db-max-conns", 20, "PostgreSQL connection pool size")
	fs.StringVar(&d.dataKeys, "data-keys", "", "keys sealing patients' personal data: index:BASE64,1:BASE64[,2:BASE64…] (32 bytes each; the highest number seals); default with SQLite: the data-keys file beside the database")
}

// keys returns the configured data keys: --data-keys, or for the embedded
// database nil (the store keeps a generated key file beside it, mode
// 0600); PostgreSQL refuses to start without them.
func (d *dbFlags) keys() (*pii.Keys, error) {
	if d.dataKeys != "" {
		k, err := pii.Parse(d.dataKeys)
		if err != nil {
			return nil, fmt.Errorf("--data-keys (SLOTD_DATA_KEYS): %w", err)
		}
		return k, nil
	}
	if isPostgres(d.url) {
		return nil, errors.New("set --data-keys or SLOTD_DATA_KEYS (or SLOTD_DATA_KEYS_FILE): with PostgreSQL every instance must share the keys that seal personal data; `slotd data-keys` prints new ones")
	}
	return nil, nil
}

// registerWarm adds serve's --db-warm-conns.
func (d *dbFlags) registerWarm(fs *flag.FlagSet) {
	fs.IntVar(&d.warmConns, "db-warm-conns", -1, "PostgreSQL connections opened at start and kept open, each with the booking statements prepared and planned, so that an opening's first bookings wait for neither; -1: the whole pool (--db-max-conns), 0: opened when first needed. With SQLite, any value but 0 prepares the booking statements and opens the reader connections at start")
}

// warm is the number of connections --db-warm-conns asks for.
func (d *dbFlags) warm() int32 {
	if d.warmConns < 0 {
		return int32(d.maxConns)
	}
	return int32(min(d.warmConns, d.maxConns))
}

func (d *dbFlags) registerAuth(fs *flag.FlagSet) {
	fs.StringVar(&d.authSecret, "auth-secret", "", "HS256 secret for bearer tokens (at least 32 bytes); default: a generated secret kept beside the SQLite database")
}

// sqlitePath returns the file of a sqlite: URL, or "" for another database.
func sqlitePath(url string) string {
	if p, ok := strings.CutPrefix(url, "sqlite:"); ok {
		return strings.TrimPrefix(p, "//")
	}
	return ""
}

func isPostgres(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// migrate applies the schema migrations of the configured database, then
// River's (the job tables live beside the bookings).
func (d *dbFlags) migrate(ctx context.Context) error {
	keys, err := d.keys()
	if err != nil {
		return err
	}
	switch {
	case isPostgres(d.url):
		err = postgres.MigrateKeys(ctx, d.url, keys)
	case sqlitePath(d.url) != "":
		var s *sqlite.Store
		if s, err = sqlite.OpenKeys(ctx, sqlitePath(d.url), keys); err == nil {
			err = s.Migrate(ctx)
			s.Close()
		}
	default:
		return fmt.Errorf("--db %q: want sqlite:PATH or postgres://…", d.url)
	}
	if err != nil {
		return err
	}
	s, err := d.openOnly(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.MigrateRiver(ctx); err != nil {
		return err
	}
	return fillNameIndexes(ctx, s)
}

// nameIndexBatch is how many people one transaction of fillNameIndexes
// hashes.
const nameIndexBatch = 500

// fillNameIndexes gives the people stored before migration 00031 the
// keyed hash of their name and birth date that the front desk finds them
// by, in batches; once done, a start costs one query that finds none.
func fillNameIndexes(ctx context.Context, s store) error {
	var after int64
	for {
		last, err := s.FillNameIndexes(ctx, after, nameIndexBatch)
		if err != nil || last == 0 {
			return err
		}
		after = last
	}
}

// pendingMigrations lists the schema migrations migrate would apply,
// changing nothing.
func (d *dbFlags) pendingMigrations(ctx context.Context) ([]string, error) {
	switch {
	case isPostgres(d.url):
		return postgres.PendingMigrations(ctx, d.url)
	case sqlitePath(d.url) != "":
		return sqlite.PendingMigrations(ctx, sqlitePath(d.url))
	}
	return nil, fmt.Errorf("--db %q: want sqlite:PATH or postgres://…", d.url)
}

// open migrates and opens the configured database.
func (d *dbFlags) open(ctx context.Context) (store, error) {
	if err := d.migrate(ctx); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return d.openOnly(ctx)
}

// openOnly opens the configured database without migrating it. Its
// changes enqueue no notification and write no event: a command that
// runs no jobs has nothing to deliver them (serve opens with openServing).
func (d *dbFlags) openOnly(ctx context.Context) (store, error) {
	keys, err := d.keys()
	if err != nil {
		return nil, err
	}
	if isPostgres(d.url) {
		return postgres.Open(ctx, d.url, postgres.Options{MaxConns: int32(d.maxConns), Keys: keys})
	}
	return sqlite.OpenKeys(ctx, sqlitePath(d.url), keys)
}

// startJobs starts the job runner on the store it was made for (jobs.Start).
type startJobs func(ctx context.Context, cfg jobs.Config) (*jobs.Runner, error)

// openServing migrates and opens the configured database as serve needs
// it: its changes enqueue their notifications through the job queue's
// outbox (bound once the returned startJobs has built the runner) and,
// with events, the relay's cursor over the audit log starts (when none has).
func (d *dbFlags) openServing(ctx context.Context, events bool) (store, startJobs, error) {
	if err := d.migrate(ctx); err != nil {
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	keys, err := d.keys()
	if err != nil {
		return nil, nil, err
	}
	if isPostgres(d.url) {
		out := new(jobs.Outbox[pgx.Tx])
		s, err := postgres.Open(ctx, d.url, postgres.Options{MaxConns: int32(d.maxConns), WarmConns: d.warm(), Keys: keys,
			Enqueue: out.Enqueue, OutboxStatement: jobs.OutboxStatement, Events: events})
		if err != nil {
			return nil, nil, err
		}
		return s, func(ctx context.Context, cfg jobs.Config) (*jobs.Runner, error) { return jobs.Start(ctx, s, out, cfg) }, nil
	}
	out := new(jobs.Outbox[*sql.Tx])
	s, err := sqlite.OpenWith(ctx, sqlitePath(d.url), sqlite.Options{Keys: keys, Enqueue: out.Enqueue, Events: events, Warm: d.warm() > 0})
	if err != nil {
		return nil, nil, err
	}
	return s, func(ctx context.Context, cfg jobs.Config) (*jobs.Runner, error) { return jobs.Start(ctx, s, out, cfg) }, nil
}

// signer returns the token signer: the configured secret, or for the
// embedded database a secret generated once and kept beside it (mode 0600).
func (d *dbFlags) signer() (*auth.Signer, error) {
	if d.authSecret != "" {
		return auth.NewSigner([]byte(d.authSecret))
	}
	p := sqlitePath(d.url)
	if p == "" {
		return nil, errNoAuthSecret
	}
	secret, err := auth.LoadOrCreateSecret(filepath.Join(filepath.Dir(p), "auth-secret"))
	if err != nil {
		return nil, err
	}
	return auth.NewSigner(secret)
}

var errNoAuthSecret = errors.New("set --auth-secret or SLOTD_AUTH_SECRET (or SLOTD_AUTH_SECRET_FILE): with PostgreSQL every instance must share one secret")

// checkSecrets refuses, before anything is opened, data keys that do not
// parse and a PostgreSQL without the secrets its instances share (SQLite
// keeps generated ones beside its file).
func (d *dbFlags) checkSecrets() error {
	if _, err := d.keys(); err != nil {
		return err
	}
	if d.authSecret == "" && sqlitePath(d.url) == "" {
		return errNoAuthSecret
	}
	return nil
}

// mkdirFor makes sure the directory of a SQLite file exists.
func mkdirFor(url string) error {
	if p := sqlitePath(url); p != "" {
		return os.MkdirAll(filepath.Dir(p), 0o700)
	}
	return nil
}

// openReplica opens the read replica at url (--db-read), or returns nil to read the
// primary.
func (d *dbFlags) openReplica(ctx context.Context, url string) (*postgres.Store, error) {
	if url == "" {
		return nil, nil
	}
	if !isPostgres(url) || !isPostgres(d.url) {
		return nil, fmt.Errorf("--db-read needs a PostgreSQL --db and a postgres:// replica URL")
	}
	keys, err := d.keys()
	if err != nil {
		return nil, err
	}
	// The replica's rows are the primary's, sealed with the same keys.
	return postgres.Open(ctx, url, postgres.Options{MaxConns: int32(d.maxConns), Keys: keys})
}
