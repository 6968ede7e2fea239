package pgtest

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/internal/testkit"
)

// ReplicaEnvVar names the environment variable that holds the DSN of a
// streaming replica of the server in SLOTD_TEST_POSTGRES (scripts/test
// starts one under CI=true or with SLOTD_PG_REPLICA=1, scripts/lib/replica.sh).
const ReplicaEnvVar = "SLOTD_TEST_POSTGRES_REPLICA"

// ReplicaDSN returns the DSN of dsn's database (one DSN returned) on the
// replica, once the replica has replayed its creation. Without
// SLOTD_TEST_POSTGRES_REPLICA the test is skipped, or fails when CI=true.
func ReplicaDSN(t testing.TB, dsn string) string {
	t.Helper()
	replica := os.Getenv(ReplicaEnvVar)
	if replica == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("read-replica tests must run under CI=true, but " + ReplicaEnvVar +
				" is not set; run them through scripts/test (or .ci/run), which starts a streaming replica under CI=true")
		}
		t.Skip("read-replica test skipped: " + ReplicaEnvVar + " is not set; run SLOTD_PG_REPLICA=1 scripts/test")
	}
	name := databaseOf(dsn)
	out, err := withDatabase(replica, name)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", ReplicaEnvVar, err)
	}
	// The replica has the database once it replayed CREATE DATABASE: a
	// liveness wait, generous for a loaded machine.
	if !testkit.Poll(60*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var c *pgx.Conn
		if c, err = pgx.Connect(ctx, out); err == nil {
			_ = c.Close(ctx)
		}
		return err == nil
	}) {
		t.Fatalf("pgtest: database %s never appeared on the replica: %v", name, err)
	}
	return out
}

// databaseOf is the database name of a DSN that withDatabase made.
func databaseOf(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		return strings.TrimPrefix(u.Path, "/")
	}
	_, name, _ := strings.Cut(dsn, " dbname=")
	return name
}
