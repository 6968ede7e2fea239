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
	if err := parse(fs, args, stderr); err != nil {
		return err
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
