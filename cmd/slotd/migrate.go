package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	dry := fs.Bool("dry-run", false, "list the schema migrations that would be applied, applying nothing (and creating no file)")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *dry {
		return listPending(ctx, &db, stdout)
	}
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	if err := db.migrate(ctx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

// listPending prints the schema migrations the database at url lacks, one
// a line, then a count. River's own job-table migrations are not listed:
// migrate applies them after the schema's.
func listPending(ctx context.Context, db *dbFlags, stdout io.Writer) error {
	pending, err := db.pendingMigrations(ctx)
	if err != nil {
		return err
	}
	for _, p := range pending {
		fmt.Fprintln(stdout, "pending:", p)
	}
	fmt.Fprintf(stdout, "%d pending migrations (dry run: nothing applied)\n", len(pending))
	return nil
}
