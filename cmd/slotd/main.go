// Command slotd is the booking service and its tools: serve, migrate,
// token, demo-data, rush, reconcile, staff-password, chaos.
//
// Every flag can also be set by an environment variable named SLOTD_ and the
// flag's name in upper case with dashes as underscores (--db → SLOTD_DB);
// a flag given on the command line wins.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"serve", "run the service (API and web UI)", runServe},
	{"migrate", "apply the schema migrations", runMigrate},
	{"token", "mint a bearer token", runToken},
	{"demo-data", "create sample departments, doctors, patients and slots", runDemoData},
	{"rush", "the 7:00 rush: load a running server, verify, report", runRush},
	{"reconcile", "check (and with --repair fix) the booking invariants; exit 1 when broken", runReconcile},
	{"staff-password", "set a staff user's web UI password (read from stdin)", runStaffPassword},
	{"chaos", "kill the server and the database mid-rush, then check every promise (scripts/chaos)", runChaos},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "slotd:", err)
		}
		var st *exitStatus
		if errors.As(err, &st) {
			os.Exit(st.code)
		}
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: slotd <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'slotd <command> -h' for its flags; each flag also reads SLOTD_<FLAG>.")
}

// parse parses args into fs after filling every flag not given on the
// command line from its environment variable.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", envName(f.Name), err))
			}
		}
	})
	return errors.Join(errs...)
}

// envName is the environment variable read for a flag.
func envName(flagName string) string {
	return "SLOTD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}
