package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/rush"
)

// runRush is `slotd rush`: the 7:00 rush against a running server, then
// verification and a report. Flags left unset take the scenario's preset.
func runRush(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("rush", flag.ContinueOnError)
	var db dbFlags
	fs.StringVar(&db.url, "db", defaultDB, "the server's embedded database, sqlite:PATH, whose auth-secret file is read (when --auth-secret is not given)")
	fs.StringVar(&db.authSecret, "auth-secret", "", "the server's HS256 token secret (default: the auth-secret file beside --db)")
	target := fs.String("target", "http://127.0.0.1:8080", "base URL of the running server")
	scenario := fs.String("scenario", rush.ScenarioClinic, "preset: "+strings.Join(rush.Scenarios, ", "))
	var (
		rate          = fs.Float64("rate", 0, "sessions started per second: open loop (preset)")
		clients       = fs.Int("clients", 0, "concurrent clients: closed loop (preset); also the echo comparison's clients")
		duration      = fs.Duration("duration", 0, "length of the load phase (preset)")
		patients      = fs.Int("patients", 0, "patients to create (preset)")
		slots         = fs.Int("slots", 0, "slots to create (preset)")
		capacity      = fs.Int("capacity", 0, "capacity of each slot (preset)")
		groupSlots    = fs.Int("group-slots", 0, "extra group slots (clinic: 4)")
		groupCapacity = fs.Int("group-capacity", 0, "capacity of each group slot (clinic: 10)")
		readRatio     = fs.Float64("read-ratio", 0, "slot-list reads per booking session (preset)")
		timeout       = fs.Duration("timeout", 0, "client timeout of one request; a timed-out booking is retried with the same Idempotency-Key (default 5s)")
		retries       = fs.Int("retries", 0, "retries of one click on timeout, 429, 503 (default 3)")
		switchN       = fs.Int("switch", 0, "other slots a patient tries, each with a new key, after a 409 slot-full (preset)")
		sessions      = fs.Int("sessions", 0, "sessions per patient, 0 = unlimited (preset)")
		early         = fs.Duration("early", 0, "start clicking this long before the opening time (preset)")
		openIn        = fs.Duration("open-in", 0, "margin between the end of setup and the opening time (default 3s)")
		maxInFlight   = fs.Int("max-in-flight", 0, "open loop: most sessions and reads in flight; beyond, they count as dropped (default 2000)")
		stopSoldOut   = fs.Bool("stop-when-sold-out", false, "end the load when every place is sold (hot: true)")
		compareEcho   = fs.Bool("compare-echo", false, "after the load, drive POST /bench/echo with --clients for --echo-duration and report the ratio (server: --bench-endpoints)")
		echoDuration  = fs.Duration("echo-duration", 0, "length of the echo comparison (default 10s)")
		verifySample  = fs.Int("verify-sample", 0, "confirmed appointments fetched one by one, 0 = all (default 2000)")
		out           = fs.String("out", "rush-report", "report directory (report.json, latency.svg, histogram.svg, throughput.svg); empty: none")
		plotFormat    = fs.String("plot-format", "svg", "plots as svg, png or pdf")
		quiet         = fs.Bool("quiet", false, "no progress line")
		keep          = fs.Bool("keep", false, "keep the run's department, doctors, slots and patients on the server for inspection (default: erase the patients, close the slots and deactivate the doctors at the end, also after an error or Ctrl-C)")
		bots          = fs.Int("bots", 0, "bots: patients besides --patients who book as fast as they can from the opening (bots: 30)")
		waitingRoom   = fs.Bool("waiting-room", true, "bots: put the slots behind an opening's waiting room (--waiting-room=false: none)")
		pollEvery     = fs.Duration("poll-every", 0, "bots: how often a person asks for their place in the queue (default 2s, the page's)")
		allowReal     = fs.Bool("allow-real-data", false, "run against a server whose database holds patients or active appointments that the demo did not load (refused by default)")
	)
	if err := parse(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := rush.Preset(*scenario)
	if err != nil {
		return err
	}
	cfg.Target = *target
	cfg.Out = *out
	cfg.PlotFormat = *plotFormat
	cfg.Keep = *keep
	cfg.AllowRealData = *allowReal
	var conflict []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "rate":
			cfg.Rate = *rate
			if !given(fs, "clients") {
				cfg.Clients = 0
			}
		case "clients":
			cfg.Clients = *clients
			if !given(fs, "rate") && !*compareEcho {
				cfg.Rate = 0
			} else if given(fs, "rate") && !*compareEcho {
				conflict = append(conflict, "--rate and --clients")
			}
		case "duration":
			cfg.Duration = *duration
		case "patients":
			cfg.Patients = *patients
		case "slots":
			cfg.Slots = *slots
		case "capacity":
			cfg.Capacity = *capacity
		case "group-slots":
			cfg.GroupSlots = *groupSlots
		case "group-capacity":
			cfg.GroupCapacity = *groupCapacity
		case "read-ratio":
			cfg.ReadRatio = *readRatio
		case "timeout":
			cfg.Timeout = *timeout
		case "retries":
			cfg.Retries = *retries
		case "switch":
			cfg.Switch = *switchN
		case "sessions":
			cfg.Sessions = *sessions
		case "early":
			cfg.Early = *early
		case "open-in":
			cfg.OpenIn = *openIn
		case "max-in-flight":
			cfg.MaxInFlight = *maxInFlight
		case "stop-when-sold-out":
			cfg.StopWhenSoldOut = *stopSoldOut
		case "compare-echo":
			cfg.CompareEcho = *compareEcho
		case "echo-duration":
			cfg.EchoDuration = *echoDuration
		case "verify-sample":
			cfg.VerifySample = *verifySample
		case "bots":
			cfg.Bots = *bots
		case "waiting-room":
			cfg.WaitingRoom = *waitingRoom
		case "poll-every":
			cfg.PollEvery = *pollEvery
		}
	})
	if len(conflict) > 0 {
		return fmt.Errorf("give either %s, not both (open or closed loop)", strings.Join(conflict, " or "))
	}
	if cfg.CompareEcho && cfg.Clients == 0 {
		cfg.Clients = 64
	}
	if cfg.Scenario != rush.ScenarioEcho || db.authSecret != "" {
		if cfg.Signer, err = rushSigner(&db); err != nil {
			if cfg.Scenario != rush.ScenarioEcho {
				return err
			}
		}
	}
	cfg.Log = stderr
	if !*quiet {
		cfg.Progress = stderr
	}
	rep, err := rush.Run(ctx, cfg)
	if rep != nil {
		rep.PrintSummary(stdout)
	}
	if err != nil {
		return err
	}
	if !rep.Passed() {
		return errors.New("rush: verification FAILED")
	}
	return nil
}

// given reports whether the flag was set on the command line or by its
// environment variable.
func given(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// rushSigner is the server's token signer. Unlike serve and token, rush
// must never create a secret: a fresh one would not match the running
// server's, and every request would answer 401.
func rushSigner(db *dbFlags) (*auth.Signer, error) {
	if db.authSecret == "" {
		p := sqlitePath(db.url)
		if p == "" {
			return nil, errors.New("give --auth-secret (SLOTD_AUTH_SECRET): the server's token secret")
		}
		f := filepath.Join(filepath.Dir(p), "auth-secret")
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("no token secret: give --auth-secret, or --db sqlite:PATH of the server's database (%s: %v)", f, err)
		}
	}
	return db.signer()
}
