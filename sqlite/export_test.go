package sqlite

import (
	"context"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// SetRacy switches the deliberate read-then-write Book on or off, so that
// the conformance suite can prove its stress test catches races.
func (s *Store) SetRacy(on bool) { s.racy = on }

// SetStmtCache switches Book's prepared-statement cache on or off (it is on
// by default), for benchmarks that compare the two. Call before first use.
func (s *Store) SetStmtCache(on bool) { s.stmts.off = !on }

// migrateTo applies the migrations up to version (a database deployed
// before a given migration), for the tests of what the next one converts.
func (s *Store) migrateTo(ctx context.Context, version int64) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return err
	}
	n := 0
	p, err := goose.NewProvider(goose.DialectSQLite3, s.writer, fsys, goose.WithGoMigrations(migrateSeal(s.keys, &n)))
	if err != nil {
		return err
	}
	_, err = p.UpTo(ctx, version)
	return err
}
