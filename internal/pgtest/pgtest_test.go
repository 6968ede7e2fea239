package pgtest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestDSN creates a database, checks it is empty and this test's own, and
// checks that cleanup drops it even with a connection still open.
func TestDSN(t *testing.T) {
	ctx := context.Background()
	var name string
	t.Run("create", func(t *testing.T) {
		dsn := DSN(t)
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect to %s: %v", dsn, err)
		}
		// Left open on purpose: cleanup must terminate it before dropping.
		if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
		var tables int
		err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`).Scan(&tables)
		if err != nil {
			t.Fatal(err)
		}
		if tables != 0 {
			t.Errorf("new database %s has %d relations, want 0", name, tables)
		}
		// The database is usable for what the stores need.
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS btree_gist; CREATE TABLE t (id int)"); err != nil {
			t.Fatal(err)
		}
	})
	if name == "" {
		t.SkipNow() // the subtest skipped or failed
	}

	admin, err := pgx.Connect(ctx, os.Getenv(EnvVar))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("database %s still exists after cleanup", name)
	}
}

// TestDSNParallel creates databases concurrently, as parallel tests do, and
// checks that their names differ.
func TestDSNParallel(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	t.Run("group", func(t *testing.T) {
		for range 16 {
			t.Run("db", func(t *testing.T) {
				t.Parallel()
				dsn := DSN(t)
				mu.Lock()
				defer mu.Unlock()
				if seen[dsn] {
					t.Errorf("DSN %s handed out twice", dsn)
				}
				seen[dsn] = true
			})
		}
	})
}

func TestWithDatabase(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "postgres://postgres@127.0.0.1:5432/x?sslmode=disable"},
		{"postgresql://u:p@h/", "postgresql://u:p@h/x"},
		{"host=/tmp user=postgres", "host=/tmp user=postgres dbname=x"},
	} {
		got, err := withDatabase(c.in, "x")
		if err != nil || got != c.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// BenchmarkDSN measures creating and dropping one test database, serially
// and with as many goroutines as GOMAXPROCS (go test -cpu sets it).
func BenchmarkDSN(b *testing.B) {
	admin := os.Getenv(EnvVar)
	if admin == "" {
		b.Skip(EnvVar + " is not set")
	}
	cycle := func(b *testing.B) {
		name := newName()
		if err := createDatabase(admin, name); err != nil {
			b.Fatal(err)
		}
		if err := dropDatabase(admin, name); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			cycle(b)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				cycle(b)
			}
		})
	})
}
