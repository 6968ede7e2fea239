package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/slotd/slotd/chaos"
	"github.com/slotd/slotd/linear"
)

// runChaos is `slotd chaos`: a rush against `slotd serve` children of this
// very binary, killed and restarted, with database outages on PostgreSQL,
// then the checks (package chaos; scripts/chaos runs it on both stores);
// with --backup-drill a backup and restore instead (scripts/backup-drill).
func runChaos(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	var cfg chaos.Config
	fs.StringVar(&cfg.DB, "db", "", "the database of the children: sqlite:PATH or a postgres:// URL (required; use a fresh one)")
	fs.IntVar(&cfg.Cycles, "cycles", 20, "kill -9 and restart the server this many times")
	quick := fs.Bool("quick", false, "5 cycles (for CI)")
	fs.DurationVar(&cfg.DBTimeout, "db-timeout", 2*time.Second, "the children's --db-timeout")
	fs.DurationVar(&cfg.Margin, "margin", time.Second, "how much later than --db-timeout an answer may come during an outage")
	fs.DurationVar(&cfg.Outage, "outage", 10*time.Second, "PostgreSQL: how long the database stays stopped")
	fs.DurationVar(&cfg.Freeze, "freeze", 10*time.Second, "PostgreSQL: how long its processes stay frozen (SIGSTOP)")
	fs.DurationVar(&cfg.Recovery, "recovery", 5*time.Second, "the first success must come this soon after the database returns")
	fs.StringVar(&cfg.PGData, "pg-data", "", "PostgreSQL: the server's data directory (required with a postgres:// --db)")
	fs.StringVar(&cfg.PGBin, "pg-bin", "", "PostgreSQL: the directory of pg_ctl")
	fs.StringVar(&cfg.PGLog, "pg-log", "", "PostgreSQL: the server's log file for pg_ctl start")
	fs.StringVar(&cfg.PGUser, "pg-user", "", "PostgreSQL: run pg_ctl as this user (when we are root)")
	fs.IntVar(&cfg.Slots, "slots", 6, "slots booked at once (capacities 1 to 4)")
	fs.IntVar(&cfg.Patients, "patients", 8, fmt.Sprintf("patients per slot (at most %d)", linear.MaxPatients))
	fs.StringVar(&cfg.Record, "record", "", "write every request and answer to this JSON Lines file")
	fs.StringVar(&cfg.ServerLog, "server-log", "", "append the servers' logs to this file")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "random seed (0: from the clock)")
	fs.DurationVar(&cfg.Hold, "hold", 0, "instead of kills and outages: rush this long while the fault comes from outside (scripts/failover kills the PostgreSQL leader), then report the longest time without a confirmed booking")
	drill := fs.Bool("backup-drill", false, "instead of kills and outages: a backup mid-rush, more bookings, the restore, and the checks that what was confirmed before the backup's moment is back and nothing after it")
	var d chaos.DrillConfig
	fs.StringVar(&d.Backup, "backup", "", "backup drill on SQLite: the file slotd backup writes (default: beside --db)")
	fs.StringVar(&d.PgBackRestConfig, "pgbackrest-config", "", "backup drill on PostgreSQL: pgBackRest's configuration file (the server archives its WAL there)")
	fs.StringVar(&d.Stanza, "pgbackrest-stanza", "slotd", "backup drill on PostgreSQL: pgBackRest's stanza")
	fs.DurationVar(&d.Before, "before", 3*time.Second, "backup drill: how long the rush runs before the moment")
	fs.DurationVar(&d.After, "after", 3*time.Second, "backup drill: how long it runs after it")
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	if *quick && !given(fs, "cycles") {
		cfg.Cycles = 5
	}
	switch {
	case cfg.DB == "":
		return errors.New("--db is required")
	case *drill && cfg.Hold > 0:
		return errors.New("--backup-drill and --hold are different runs: give one")
	case strings.HasPrefix(cfg.DB, "postgres") && cfg.Hold == 0 && (cfg.PGData == "" || cfg.PGBin == "" || cfg.PGLog == ""):
		return errors.New("a postgres:// --db needs --pg-data, --pg-bin and --pg-log, to stop and freeze it")
	case *drill && strings.HasPrefix(cfg.DB, "postgres") && d.PgBackRestConfig == "":
		return errors.New("a backup drill on PostgreSQL needs --pgbackrest-config")
	case cfg.Patients < 1 || cfg.Patients > linear.MaxPatients || cfg.Slots < 1:
		return fmt.Errorf("--slots ≥ 1 and --patients 1 to %d", linear.MaxPatients)
	}
	var err error
	if cfg.Binary, err = os.Executable(); err != nil {
		return err
	}
	cfg.Progress = stderr
	var rep chaos.Report
	if *drill {
		if d.Backup == "" {
			d.Backup = sqlitePath(cfg.DB) + ".drill-backup"
		}
		rep, err = chaos.Drill(ctx, cfg, d)
	} else {
		rep, err = chaos.Run(ctx, cfg)
	}
	if err != nil {
		return err
	}
	store := "sqlite"
	if strings.HasPrefix(cfg.DB, "postgres") {
		store = "postgres"
	}
	rep.Print(stdout, store)
	if rep.Failed() > 0 {
		return &exitStatus{code: 1, msg: fmt.Sprintf("chaos: %d checks failed", rep.Failed())}
	}
	return nil
}
