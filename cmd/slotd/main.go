// Command slotd is the booking service and its tools: init, serve, migrate,
// backup, restore, token, demo-data, listing, rush, reconcile,
// staff-password, staff-totp, staff-disable, chaos, version, healthcheck.
//
// Every flag can also be set by an environment variable named SLOTD_ and the
// flag's name in upper case with dashes as underscores (--db → SLOTD_DB),
// or read from the file SLOTD_<NAME>_FILE names (secrets mounted as files);
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
	{"init", "set up a new installation: secrets, database, clinic settings and the first admin", runInit},
	{"serve", "run the service (API and web UI)", runServe},
	{"migrate", "apply the schema migrations (--dry-run lists those pending)", runMigrate},
	{"backup", "copy a SQLite database, consistent while it serves, to --to FILE (PostgreSQL: pg_dump)", runBackup},
	{"restore", "put a backup from --from FILE back as the SQLite database, then check its keys and invariants", runRestore},
	{"token", "mint a bearer token", runToken},
	{"demo-data", "create sample departments, doctors, patients and slots", runDemoData},
	{"listing", "list random doctors' days in process and report p50/p99 (the scale figure of demo-data --doctors 20000)", runListing},
	{"rush", "the 7:00 rush: load a running server, verify, report", runRush},
	{"reconcile", "check (and with --repair fix) the booking invariants; exit 1 when broken, 3 when only actions are pending", runReconcile},
	{"import", "import a CSV file of departments, doctors, schedules or patients (--dry-run checks only)", runImport},
	{"rekey", "re-seal patients' personal data with the newest data key, in batches (resumable)", runRekey},
	{"data-keys", "print new data keys for --data-keys, or with --add the rotation's next key appended", runDataKeys},
	{"staff-password", "set a staff user's web UI password (read from stdin); the user's older sessions and tokens end", runStaffPassword},
	{"staff-totp", "enrol (prints the otpauth:// URL once) or --remove a staff user's second factor", runStaffTOTP},
	{"staff-disable", "disable a staff user (no sign-in; every session and token refused), or --enable it again", runStaffDisable},
	{"chaos", "kill the server and the database mid-rush, then check every promise (scripts/chaos)", runChaos},
	{"version", "print the version and VCS revision of this binary", runVersion},
	{"verify-draw", "check a lottery round's published draw (--file or --url with --round): seed against commitment, order against the algorithm; exit 1 on a mismatch", runVerifyDraw},
	{"healthcheck", "GET a running slotd's /healthz; exit 0 when it answers 200 (container HEALTHCHECK)", runHealthcheck},
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
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(ctx, args[1:], stdout, stderr)
	}
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

// parsing, when set, is given every flag set parse is about to parse: a
// test's way to reach each subcommand's flags.
var parsing func(*flag.FlagSet)

// parse parses args into fs after filling every flag not given on the
// command line from its environment variable.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if parsing != nil {
		parsing(fs)
	}
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
		v, ok := os.LookupEnv(envName(f.Name))
		if path, isFile := os.LookupEnv(envName(f.Name) + "_FILE"); isFile {
			if ok {
				errs = append(errs, fmt.Errorf("both %s and %s_FILE are set", envName(f.Name), envName(f.Name)))
				return
			}
			b, err := os.ReadFile(path)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s_FILE: %w", envName(f.Name), err))
				return
			}
			// A file written by an editor or `echo` ends with a newline
			// that is not part of the secret.
			v, ok = strings.TrimRight(string(b), "\r\n"), true
		}
		if ok {
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
