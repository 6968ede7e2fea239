// Package chaos is `slotd chaos`: a rush against a `slotd serve` child that
// it kills with SIGKILL at random moments and restarts, and on PostgreSQL a
// database that it stops (pg_ctl stop -m immediate) and freezes (SIGSTOP)
// mid-rush. It records every request and answer, then checks what slotd
// promises: no confirmed booking lost, retries answered with the original,
// no slot over capacity, nobody twice in a slot, queue numbers unique,
// counters equal to rows, reconcile clean, every slot's history
// linearizable, and during the outages only prompt 503s with Retry-After.
// scripts/chaos drives it on both stores.
package chaos

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/slotd/slotd/pii"
)

// Config is one chaos run.
type Config struct {
	Binary string // the slotd executable: the serve children and reconcile
	DB     string // sqlite:PATH or a postgres:// URL
	// DataKeys are the children's SLOTD_DATA_KEYS, the same for every
	// restart; new ones when empty.
	DataKeys string

	Cycles    int           // kill -9 and restart this many times
	DBTimeout time.Duration // the children's --db-timeout
	Margin    time.Duration // how much later than DBTimeout an answer may come during an outage
	Outage    time.Duration // PostgreSQL: how long the database stays stopped
	Freeze    time.Duration // PostgreSQL: how long its processes stay stopped (SIGSTOP)
	Recovery  time.Duration // the first success must come this soon after the database returns

	// PostgreSQL's server, for the outages: its data directory, its
	// binaries (pg_ctl), its log and the user to run pg_ctl as ("" = us).
	PGData, PGBin, PGLog, PGUser string

	// Hold, when set, replaces the kills and outages: the rush runs this
	// long while someone else injects the fault (scripts/failover kills
	// the PostgreSQL leader's machine), and the report measures the
	// longest time without a confirmed booking.
	Hold time.Duration

	Slots    int // slots booked at once
	Patients int // patients per slot (≤ linear.MaxPatients)

	Record    string // the JSON Lines file of every request and answer ("" = none)
	ServerLog string // where the children's stderr goes ("" = discarded)
	Seed      uint64
	Progress  io.Writer // progress lines (nil = none)
}

func (c Config) store() string {
	if strings.HasPrefix(c.DB, "postgres") {
		return "postgres"
	}
	return "sqlite"
}

// Report is the outcome of a run: the checks and the figures.
type Report struct {
	Checks []Check
	// Figures of the run.
	Cycles, Requests, Confirmed, Lost, Histories, Operations int
	// StaleFull counts the slot-full answers left out of the histories for
	// being concurrent with a cancel (linear.History.DropFullDuringCancel).
	StaleFull int
	// Figures is a backup drill's or a failover's own line of figures
	// ("" for chaos).
	Figures string
}

// Check is one verdict.
type Check struct {
	Name string
	Err  error // nil: passed
}

// Failed counts the failed checks.
func (r Report) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if c.Err != nil {
			n++
		}
	}
	return n
}

// Print writes one line per check and a closing count.
func (r Report) Print(w io.Writer, store string) {
	for _, c := range r.Checks {
		if c.Err == nil {
			fmt.Fprintf(w, "PASS %s: %s\n", store, c.Name)
		} else {
			fmt.Fprintf(w, "FAIL %s: %s: %v\n", store, c.Name, c.Err)
		}
	}
	if r.Figures != "" {
		fmt.Fprintf(w, "%s: %d requests; %s\n", store, r.Requests, r.Figures)
	} else {
		fmt.Fprintf(w, "%s: %d kill cycles, %d requests, %d answered 2xx, %d lost, %d histories, %d operations checked\n",
			store, r.Cycles, r.Requests, r.Confirmed, r.Lost, r.Histories, r.Operations-r.StaleFull)
	}
	fmt.Fprintf(w, "%s: %d passed, %d failed\n", store, len(r.Checks)-r.Failed(), r.Failed())
}

// Run runs the rush, the faults and the checks. An error means the run
// could not be made (no server, no setup); a broken promise is a failed
// check in the report.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	secretBytes := make([]byte, 32)
	_, _ = crand.Read(secretBytes)
	secret := hex.EncodeToString(secretBytes)
	if cfg.DataKeys == "" {
		cfg.DataKeys = pii.Generate()
	}
	progress := func(format string, args ...any) {
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "chaos %s: %s\n", cfg.store(), fmt.Sprintf(format, args...))
		}
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
	progress("%d slots × %d patients against %s; seed %d", cfg.Slots, cfg.Patients, srv.url, cfg.Seed)

	r.start()
	var outages []outage
	var faultErr error
	if cfg.Hold > 0 {
		progress("rushing for %v while the fault comes from outside", cfg.Hold)
		sleep(ctx, cfg.Hold)
		cfg.Cycles = 0
	}
	for i := 0; i < cfg.Cycles && faultErr == nil; i++ {
		sleep(ctx, time.Duration(300+rng.IntN(1200))*time.Millisecond)
		progress("cycle %d/%d: kill -9", i+1, cfg.Cycles)
		faultErr = srv.kill9AndRestart(ctx)
	}
	stoppedAt := time.Now()
	if cfg.Hold > 0 {
		// The fault was someone else's.
	} else if cfg.store() == "postgres" && faultErr == nil {
		db := pgControl{cfg}
		for _, f := range []struct {
			name     string
			hold     time.Duration
			down, up func(context.Context) error
		}{
			{"stopped (pg_ctl stop -m immediate)", cfg.Outage, db.stop, db.start},
			{"frozen (SIGSTOP)", cfg.Freeze, db.freeze, db.thaw},
		} {
			sleep(ctx, time.Second)
			progress("database %s for %v", f.name, f.hold)
			o := outage{name: f.name, from: time.Now()}
			if faultErr = f.down(ctx); faultErr != nil {
				break
			}
			sleep(ctx, f.hold)
			if faultErr = f.up(ctx); faultErr != nil {
				break
			}
			o.to = time.Now()
			outages = append(outages, o)
			// Keep the rush going long enough to see it recover.
			sleep(ctx, cfg.Recovery+time.Second)
		}
	} else {
		sleep(ctx, time.Second)
	}
	progress("rush stopped; settling open requests")
	r.stop()
	if faultErr != nil {
		return Report{}, fmt.Errorf("fault injection: %w", faultErr)
	}
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	progress("verifying")
	rep := verify(ctx, cfg, srv, r, outages)
	rep.Cycles = srv.kills
	if cfg.Hold > 0 {
		rep.Figures = checkGap(r.log.all(), stoppedAt, func(name string, err error) { rep.Checks = append(rep.Checks, Check{name, err}) })
	}
	if cfg.Record != "" {
		if err := r.log.write(cfg.Record); err != nil {
			rep.Checks = append(rep.Checks, Check{"the record of every request was written", err})
		}
	}
	return rep, nil
}

// outage is a time the database was away.
type outage struct {
	name     string
	from, to time.Time
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
