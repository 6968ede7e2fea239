package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// PendingMigrations lists the schema migrations (their file names, or
// "00016 (go)" for the sealing migration) that MigrateKeys would apply to
// the database at dsn, without changing anything (no lock, no table
// created).
func PendingMigrations(ctx context.Context, dsn string) ([]string, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: pending migrations: %w", err)
	}
	defer db.Close()
	// The provider only reads its sources here; it runs nothing.
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithGoMigrations(migrateSeal(nil)))
	if err != nil {
		return nil, fmt.Errorf("postgres: migrations: %w", err)
	}
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, translate(fmt.Errorf("postgres: pending migrations: %w", err), "")
	}
	applied := map[int64]bool{}
	if exists {
		// A version is applied when its latest row says so (a down
		// migration adds a row with is_applied false).
		rows, err := db.QueryContext(ctx, `SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
		if err != nil {
			return nil, translate(fmt.Errorf("postgres: pending migrations: %w", err), "")
		}
		defer rows.Close()
		for rows.Next() {
			var v int64
			var ok bool
			if err := rows.Scan(&v, &ok); err != nil {
				return nil, err
			}
			applied[v] = ok
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, s := range p.ListSources() {
		if applied[s.Version] {
			continue
		}
		name := fmt.Sprintf("%05d (go)", s.Version)
		if s.Path != "" {
			name = s.Path
		}
		out = append(out, name)
	}
	return out, nil
}
