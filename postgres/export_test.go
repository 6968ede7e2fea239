package postgres

import (
	"context"
	"database/sql"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// SetRacy switches Book to the deliberately racy read-then-write decision
// (see Store.racy), so that tests can prove their race detection works.
func (s *Store) SetRacy(on bool) { s.racy = on }

// migrateTo applies the migrations up to version (a database deployed
// before a given migration), for the tests of what the next one converts.
func migrateTo(ctx context.Context, dsn string, version int64) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithGoMigrations(migrateSeal(nil)))
	if err != nil {
		return err
	}
	_, err = p.UpTo(ctx, version)
	return err
}
