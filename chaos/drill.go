package chaos

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/slotd/slotd/pii"
)

// DrillConfig is what a backup drill needs beyond a chaos run's Config
// (whose Cycles, Outage and Freeze it does not use).
type DrillConfig struct {
	// SQLite: the file `slotd backup` writes mid-rush and `slotd restore`
	// puts back.
	Backup string
	// PostgreSQL: pgBackRest's configuration file and stanza; the server
	// of Config.PGData archives its WAL there (scripts/backup-drill sets it
	// up). The drill takes a full backup, then recovers to a moment.
	PgBackRestConfig, Stanza string
	// Before and After are how long the rush runs before the moment and
	// after it.
	Before, After time.Duration
}

// Drill is `slotd chaos --backup-drill`: a rush; in its middle a moment
// (SQLite: `slotd backup` while the server serves; PostgreSQL: a time
// after a full pgBackRest backup, with WAL archived continuously); more
// bookings and cancellations; then the restore (`slotd restore`, or
// pgBackRest's point-in-time recovery to that moment) and the checks:
// every booking confirmed before the moment is there, in the state its
// client last saw before it, none first sent after it is, the retries of
// the confirmed keys answer the original, and the rows and reconciliation
// are clean.
func Drill(ctx context.Context, cfg Config, d DrillConfig) (Report, error) {
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	secretBytes := make([]byte, 32)
	_, _ = crand.Read(secretBytes)
	secret := hex.EncodeToString(secretBytes)
	if cfg.DataKeys == "" {
		cfg.DataKeys = pii.Generate()
	}
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "backup drill %s: %s\n", cfg.store(), fmt.Sprintf(format, args...))
		}
	}
	pg := pgControl{cfg}
	backrest := func(ctx context.Context, args ...string) error {
		return pg.run(ctx, "pgbackrest", append([]string{"--config=" + d.PgBackRestConfig, "--stanza=" + d.Stanza, "--log-level-console=warn"}, args...)...)
	}

	srv, err := newServer(cfg, secret)
	if err != nil {
		return Report{}, err
	}
	defer srv.close()
	if err := srv.start(ctx); err != nil {
		return Report{}, err
	}
	r, err := newRush(ctx, cfg, srv.url, secret)
	if err != nil {
		return Report{}, fmt.Errorf("setup: %w", err)
	}
	var fig drillFigures
	if cfg.store() == "postgres" {
		progress("pgBackRest: stanza-create and a full backup")
		t := time.Now()
		if err := backrest(ctx, "stanza-create"); err != nil {
			return Report{}, err
		}
		if err := backrest(ctx, "--type=full", "backup"); err != nil {
			return Report{}, err
		}
		fig.backup = time.Since(t)
	}

	progress("%d slots × %d patients against %s; seed %d", cfg.Slots, cfg.Patients, srv.url, cfg.Seed)
	r.start()
	sleep(ctx, d.Before)
	// The moment: what the restore must bring back is what was confirmed
	// before from; what was first sent after to must be gone.
	var from, to time.Time
	if cfg.store() == "postgres" {
		from = time.Now()
		to = from
		progress("the moment to recover to: %s", from.UTC().Format(time.RFC3339Nano))
	} else {
		from = time.Now()
		out, err := exec.CommandContext(ctx, cfg.Binary, "backup", "--db", cfg.DB, "--to", d.Backup).CombinedOutput()
		to = time.Now()
		if err != nil {
			r.stop()
			return Report{}, fmt.Errorf("slotd backup: %v: %s", err, out)
		}
		fig.backup = to.Sub(from)
		progress("slotd backup while serving, %v", fig.backup.Round(time.Millisecond))
	}
	sleep(ctx, d.After)
	progress("rush stopped; settling open requests")
	r.stop()
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}

	progress("restoring")
	t := time.Now()
	if cfg.store() == "postgres" {
		// check switches to a new WAL file and waits until the one holding
		// the moment is archived.
		if err := backrest(ctx, "check"); err != nil {
			return Report{}, err
		}
		srv.halt()
		// The machine is lost: its server stops without a checkpoint.
		if err := pg.stop(ctx); err != nil {
			return Report{}, err
		}
		target := from.UTC().Format("2006-01-02 15:04:05.999999-07")
		if err := backrest(ctx, "--delta", "--type=time", "--target="+target, "--target-action=promote", "restore"); err != nil {
			return Report{}, err
		}
		if err := pg.start(ctx); err != nil {
			return Report{}, err
		}
		if err := waitPromoted(ctx, cfg.DB); err != nil {
			return Report{}, err
		}
	} else {
		srv.halt()
		cmd := exec.CommandContext(ctx, cfg.Binary, "restore", "--db", cfg.DB, "--from", d.Backup)
		cmd.Env = append(os.Environ(), "SLOTD_DATA_KEYS="+cfg.DataKeys)
		if out, err := cmd.CombinedOutput(); err != nil {
			return Report{}, fmt.Errorf("slotd restore: %v: %s", err, out)
		}
	}
	fig.restore = time.Since(t)
	progress("restored in %v", fig.restore.Round(time.Millisecond))
	if err := srv.start(ctx); err != nil {
		return Report{}, err
	}

	rep := verifyDrill(ctx, cfg, r, from, to, &fig)
	rep.Figures = fig.String()
	if cfg.Record != "" {
		if err := r.log.write(cfg.Record); err != nil {
			rep.Checks = append(rep.Checks, Check{"the record of every request was written", err})
		}
	}
	return rep, nil
}

// drillFigures are a drill's measurements, for its report.
type drillFigures struct {
	backup, restore        time.Duration
	before, between, after int // confirmed bookings by when they were sent and answered
	missing, extra         int
}

func (f drillFigures) String() string {
	return fmt.Sprintf("backup %v, restore %v; confirmed before the moment %d (missing after the restore: %d), after it %d (present: %d), across it %d",
		f.backup.Round(time.Millisecond), f.restore.Round(time.Millisecond), f.before, f.missing, f.after, f.extra, f.between)
}

// waitPromoted waits until the recovered server has left recovery and
// takes writes (slotd's start migrates).
func waitPromoted(ctx context.Context, dbURL string) error {
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var inRecovery bool
		err := db.QueryRowContext(ctx, `SELECT pg_is_in_recovery()`).Scan(&inRecovery)
		if err == nil && !inRecovery {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the recovered server is still in recovery after 2 minutes (in recovery: %v, %v)", inRecovery, err)
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

// verifyDrill checks the restored database against what the clients were
// told: before from, confirmed and present; first sent after to, absent.
func verifyDrill(ctx context.Context, cfg Config, r *rush, from, to time.Time, fig *drillFigures) Report {
	var rep Report
	add := func(name string, err error) { rep.Checks = append(rep.Checks, Check{name, err}) }
	all := r.log.all()
	rep.Requests = len(all)
	add("every answer is one a correct server gives", list(r.odd))
	add(fmt.Sprintf("every 5xx of the %d requests is a 503 with Retry-After", len(all)), only503(all))

	r.mu.Lock()
	var before, after []confirmed
	for _, c := range r.confirmed {
		switch {
		case c.answered.Before(from):
			before = append(before, *c)
		case c.sent.After(to):
			after = append(after, *c)
		default:
			fig.between++
		}
	}
	r.mu.Unlock()
	fig.before, fig.after = len(before), len(after)
	rep.Confirmed = len(before)

	// Those sent after the moment first, before the retries below send
	// anything that could (wrongly) create a row with one of their ids.
	var extra []string
	for _, c := range after {
		a := r.send(0, "verify", &slotRun{id: c.slot}, patient{c.patient, c.token}, "GET", fmt.Sprintf("/api/appointments/%d", c.appointment), "", nil)
		if a.Status != http.StatusNotFound {
			extra = append(extra, fmt.Sprintf("appointment %d (booked after the moment): %d %s, want 404", c.appointment, a.Status, a.Code))
		}
	}
	fig.extra = len(extra)
	add(fmt.Sprintf("none of the %d appointments first sent after the moment is in the restored database", len(after)), list(extra))

	var missing, replays []string
	for _, c := range before {
		a := r.send(0, "verify", &slotRun{id: c.slot}, patient{c.patient, c.token}, "GET", fmt.Sprintf("/api/appointments/%d", c.appointment), "", nil)
		want := ""
		switch {
		case !c.cancelAnswered.IsZero() && c.cancelAnswered.Before(from):
			want = "CANCELLED"
		case c.cancelSent.IsZero() || c.cancelSent.After(to):
			want = "BOOKED"
		}
		if a.Status != http.StatusOK || want != "" && a.Code != want {
			missing = append(missing, fmt.Sprintf("appointment %d: %d %s, want %s", c.appointment, a.Status, a.Code, orEither(want)))
		}
		a = r.send(0, "verify", &slotRun{id: c.slot}, patient{c.patient, c.token}, "POST", "/api/appointments", c.key, map[string]any{"slotId": c.slot})
		if a.Status != http.StatusOK || a.Appointment != c.appointment {
			replays = append(replays, fmt.Sprintf("key %s: %d %s appointment %d, want 200 appointment %d", c.key, a.Status, a.Code, a.Appointment, c.appointment))
		}
	}
	fig.missing = len(missing)
	rep.Lost = len(missing)
	add(fmt.Sprintf("each of the %d appointments confirmed before the moment is restored, in the state its client last saw before it", len(before)), list(missing))
	add(fmt.Sprintf("a retry of each of those %d keys returns the same appointment", len(before)), list(replays))
	add("at least one booking was confirmed on each side of the moment", atLeastOne(len(before), len(after)))

	checkDatabase(ctx, cfg, add)
	return rep
}

func orEither(status string) string {
	if status == "" {
		return "BOOKED or CANCELLED (its cancel was under way at the moment)"
	}
	return status
}

// atLeastOne fails a drill whose moment fell where nothing was being
// booked: it would prove nothing.
func atLeastOne(before, after int) error {
	if before == 0 || after == 0 {
		return fmt.Errorf("%d before, %d after: lengthen the rush", before, after)
	}
	return nil
}
