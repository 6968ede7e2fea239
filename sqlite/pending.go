package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pressly/goose/v3"
)

// PendingMigrations lists the schema migrations (their file names, or
// "00016 (go)" for the sealing migration) that Migrate would apply to the
// database at path, without changing anything: a missing file is a new
// database, for which every migration is pending.
func PendingMigrations(ctx context.Context, path string) ([]string, error) {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	// sql.Open connects lazily: the file is touched only by the queries
	// below, when it exists, and read only (query_only).
	db, err := sql.Open("sqlite", dsn(path, "&_query_only=1"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	defer db.Close()
	// The provider only reads its sources here; it runs nothing.
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithGoMigrations(migrateSeal(nil, new(int))))
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	applied := map[int64]bool{}
	if _, err := os.Stat(path); err == nil {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`).Scan(&n); err != nil {
			return nil, mapErr(fmt.Errorf("sqlite: pending migrations: %w", err), "")
		}
		if n > 0 {
			if applied, err = appliedVersions(ctx, db); err != nil {
				return nil, err
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	return pendingSources(p.ListSources(), applied), nil
}

// appliedVersions reads goose's version table: a version is applied when
// its latest row says so (a down migration adds a row with is_applied
// false).
func appliedVersions(ctx context.Context, db *sql.DB) (map[int64]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
	if err != nil {
		return nil, mapErr(fmt.Errorf("sqlite: pending migrations: %w", err), "")
	}
	defer rows.Close()
	applied := map[int64]bool{}
	for rows.Next() {
		var v int64
		var ok bool
		if err := rows.Scan(&v, &ok); err != nil {
			return nil, err
		}
		applied[v] = ok
	}
	return applied, rows.Err()
}

func pendingSources(sources []*goose.Source, applied map[int64]bool) []string {
	var out []string
	for _, s := range sources {
		if applied[s.Version] {
			continue
		}
		name := fmt.Sprintf("%05d (go)", s.Version)
		if s.Path != "" {
			name = s.Path
		}
		out = append(out, name)
	}
	return out
}
