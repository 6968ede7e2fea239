// Package pgtest gives tests of other packages a fresh, empty PostgreSQL
// database of their own.
//
// The server comes from the environment variable SLOTD_TEST_POSTGRES, a DSN
// to a server on which the test user may CREATE DATABASE. scripts/test starts
// a throwaway server and sets it; without it the PostgreSQL tests skip
// (or fail under CI=true, where they must run).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the environment variable that holds the admin DSN of the
// PostgreSQL server the tests use.
const EnvVar = "SLOTD_TEST_POSTGRES"

// maxIdleAdmin bounds how many admin connections are kept open between
// calls; each test binary reuses them instead of dialling for every DSN.
const maxIdleAdmin = 4

var (
	counter atomic.Uint64

	adminMu   sync.Mutex
	adminIdle []*pgx.Conn

	// createSuffix is the tail of CREATE DATABASE, chosen once per process
	// from the server's version (STRATEGY exists from PostgreSQL 15 on).
	createOnce   sync.Once
	createSuffix string
)

// DSN returns a postgres:// DSN to a new, empty database that exists only for
// this test. The database is created from template0 and dropped in
// t.Cleanup, after any cleanups the test registers later (such as closing its
// pools), with leftover connections terminated first.
//
// Without SLOTD_TEST_POSTGRES the test is skipped, or fails when CI=true. An
// unreachable server fails the test: it was asked for.
func DSN(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvVar)
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("PostgreSQL tests must run under CI=true, but " + EnvVar +
				" is not set; run them through scripts/test (or .ci/run), which starts a throwaway PostgreSQL")
		}
		t.Skip("PostgreSQL tests skipped: " + EnvVar + " is not set; run scripts/test, which starts a throwaway PostgreSQL")
	}

	name := newName()
	if err := createDatabase(admin, name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(admin, name); err != nil {
			t.Errorf("pgtest: dropping test database %s: %v", name, err)
		}
	})

	dsn, err := withDatabase(admin, name)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", EnvVar, err)
	}
	return dsn
}

// newName returns a database name unique across the test binaries that share
// one server: the process id keeps binaries apart, the counter keeps tests of
// one binary apart, and the random part covers pid reuse and other machines
// sharing the server.
func newName() string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return fmt.Sprintf("slotd_t_%d_%d_%s", os.Getpid(), counter.Add(1), hex.EncodeToString(b[:]))
}

// chooseCreateSuffix picks how databases are copied. On PostgreSQL 15+,
// STRATEGY FILE_COPY copies template0's files directly instead of writing
// every block through the WAL (the WAL_LOG default), which measured faster for
// tiny databases on a throwaway server with fsync off.
func chooseCreateSuffix(ctx context.Context, conn *pgx.Conn) string {
	const base = " TEMPLATE template0"
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return base
	}
	if version >= 150000 {
		return base + " STRATEGY FILE_COPY"
	}
	return base
}

// createDatabase creates an empty database from template0.
func createDatabase(admin, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := getAdmin(ctx, admin)
	if err != nil {
		return fmt.Errorf("cannot reach the PostgreSQL server in %s: %w", EnvVar, err)
	}
	createOnce.Do(func() { createSuffix = chooseCreateSuffix(ctx, conn) })
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+createSuffix); err != nil {
		discardAdmin(conn)
		return fmt.Errorf("CREATE DATABASE %s: %w", name, err)
	}
	putAdmin(conn)
	return nil
}

// dropDatabase ends the connections left to the test database and drops it.
func dropDatabase(admin, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := getAdmin(ctx, admin)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx,
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
		name); err != nil {
		discardAdmin(conn)
		return err
	}
	// FORCE also ends connections that arrived after the statement above.
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		discardAdmin(conn)
		return err
	}
	putAdmin(conn)
	return nil
}

// getAdmin takes an idle admin connection or opens a new one.
func getAdmin(ctx context.Context, admin string) (*pgx.Conn, error) {
	adminMu.Lock()
	if n := len(adminIdle); n > 0 {
		c := adminIdle[n-1]
		adminIdle = adminIdle[:n-1]
		adminMu.Unlock()
		if !c.IsClosed() {
			return c, nil
		}
	} else {
		adminMu.Unlock()
	}
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("parsing DSN: %w", err)
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > 10*time.Second {
		cfg.ConnectTimeout = 10 * time.Second
	}
	// Admin statements are one-off; the statement cache would only grow.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	return pgx.ConnectConfig(ctx, cfg)
}

// putAdmin returns a healthy admin connection for reuse.
func putAdmin(c *pgx.Conn) {
	adminMu.Lock()
	if len(adminIdle) < maxIdleAdmin && !c.IsClosed() {
		adminIdle = append(adminIdle, c)
		adminMu.Unlock()
		return
	}
	adminMu.Unlock()
	discardAdmin(c)
}

// discardAdmin closes an admin connection that failed or is not needed.
func discardAdmin(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx)
}

// withDatabase returns the admin DSN pointed at another database. URL DSNs
// stay URLs; keyword/value DSNs get a dbname setting appended (the last one
// wins).
func withDatabase(admin, name string) (string, error) {
	if strings.HasPrefix(admin, "postgres://") || strings.HasPrefix(admin, "postgresql://") {
		u, err := url.Parse(admin)
		if err != nil {
			return "", err
		}
		u.Path = "/" + name
		u.RawPath = ""
		q := u.Query()
		if q.Has("dbname") {
			q.Set("dbname", name)
			u.RawQuery = q.Encode()
		}
		return u.String(), nil
	}
	return admin + " dbname=" + name, nil
}
