package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/csvdata"
	"github.com/slotd/slotd/metrics"
	"github.com/slotd/slotd/service"
)

// runImport imports one CSV file of departments, doctors, schedules or
// patients (told by its header) through the Service; --dry-run checks and
// counts without changing anything. It exits 1 when a line was refused.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	dry := fs.Bool("dry-run", false, "check every line and count what would be created, changing nothing")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: slotd import [--db URL] [--dry-run] FILE\n\nFILE is CSV with one of these headers:")
		kinds := csvdata.Kinds()
		names := make([]string, 0, len(kinds))
		for k := range kinds {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(stderr, "  %-12s %s\n", k, kinds[k])
		}
		fs.PrintDefaults()
	}
	// FILE comes last; the flags before it take parse's usual checks.
	if len(args) == 0 || strings.HasPrefix(args[len(args)-1], "-") {
		// Without a FILE the flags still parse, so that -h is help, not an error.
		if err := parse(fs, args, stderr); err != nil {
			return err
		}
		fs.SetOutput(stderr)
		fs.Usage()
		return fmt.Errorf("import takes one FILE, last")
	}
	file := args[len(args)-1]
	if err := parse(fs, args[:len(args)-1], stderr); err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := mkdirFor(db.url); err != nil {
		return err
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := service.NewService(store, service.Options{Timeout: time.Minute})
	ctx = booking.WithActor(ctx, booking.Actor{Role: booking.ActorSystem, ID: "slotd-import"})
	rep, err := csvdata.Import(ctx, svc, store, csvdata.File{CSV: f, DryRun: *dry})
	if err != nil {
		return err
	}
	verb := "created"
	if rep.DryRun {
		verb = "would create"
	}
	fmt.Fprintf(stdout, "%s: %d rows, %s %d, %d existing, %d refused\n", rep.Kind, rep.Rows, verb, rep.Create, rep.Exist, len(rep.Errors))
	for _, e := range rep.Errors {
		fmt.Fprintf(stdout, "  line %d: %s\n", e.Line, e.Message)
	}
	if len(rep.Errors) > 0 {
		return &exitStatus{code: 1, msg: "import: some lines were refused (see above)"}
	}
	return nil
}

// registerReconcileGauges exports the last scheduled reconciliation's
// verdict (slotd_reconciliation_issues{kind,class} and its time), read at
// each scrape from the database (one row), so that every instance exports
// the run of whichever instance's job made it; nothing before the first run
// or when the database does not answer.
func registerReconcileGauges(m *metrics.Metrics, svc *service.Service) {
	m.ReconciliationFrom(func() (metrics.Reconciliation, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		run, err := svc.LastReconcileRun(ctx)
		if err != nil {
			return metrics.Reconciliation{}, false
		}
		return metrics.Reconciliation{At: run.CheckedAt, Kinds: run.Kinds, Violation: booking.ViolationKind}, true
	})
}
