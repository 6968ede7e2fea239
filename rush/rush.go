// Package rush is slotd's load generator and verifier: the 7:00 rush
// against a running server.
//
// A run creates its own department, doctors, slots and patients through the
// admin API (minting the patients' tokens with the server's secret), waits
// for the slots' opening time, then clicks "Book" as many patients would:
// open loop at a target rate or closed loop with a fixed number of
// clients, with slot-list reads beside, retrying timeouts with the same
// Idempotency-Key. Afterwards it asks the server what it holds and checks
// that nothing was oversold, nothing confirmed was lost and nobody holds a
// slot twice, then prints a summary and writes report.json and SVG plots.
// Last it removes what it created (Cleanup); it refuses, before creating
// anything, a server that holds a clinic's real data (checkTarget).
//
// Latencies go into HdrHistograms per endpoint and outcome, and per 100 ms
// bucket for the plots; the generator shares the machine with the server,
// so it keeps its own work per request small.
package rush

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/slotd/slotd/auth"
)

// Run performs one rush as cfg describes and returns its report. The error
// is for runs that could not be carried out (bad config, setup refused,
// interrupted); a run that found a violated invariant returns a report
// whose Verification failed. Whatever setup created is removed at the end
// (Cleanup), after an error or an interrupt too, unless cfg.Keep.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	if err := validate(&cfg); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	conns := max(cfg.Clients, cfg.MaxInFlight)
	if cfg.Rate == 0 {
		conns = cfg.Clients
	}
	client := newHTTPClient(cfg.Timeout, min(conns, 10000))
	a := &api{c: newHTTPClient(30*time.Second, 256), base: cfg.Target}

	rep = &Report{
		Scenario: cfg.Scenario, Target: cfg.Target, Started: time.Now(),
		Endpoints: map[string]*EndpointReport{},
		Settings: Settings{
			Rate: cfg.Rate, Clients: cfg.Clients, Duration: cfg.Duration.String(), Patients: cfg.Patients,
			Slots: cfg.Slots, Capacity: cfg.Capacity, GroupSlots: cfg.GroupSlots, GroupCapacity: cfg.GroupCapacity,
			ReadRatio: cfg.ReadRatio, Timeout: cfg.Timeout.String(), Retries: cfg.Retries, Switch: cfg.Switch,
			Sessions: cfg.Sessions, StopWhenSoldOut: cfg.StopWhenSoldOut, Bots: cfg.Bots, WaitingRoom: cfg.WaitingRoom,
		},
	}
	if cfg.Early > 0 {
		rep.Settings.Early = cfg.Early.String()
	}
	switch {
	case cfg.Bots > 0:
		rep.Mode = fmt.Sprintf("%d people clicking once, %d bots retrying, for at most %s", cfg.Patients, cfg.Bots, cfg.Duration)
	case cfg.Rate > 0:
		rep.Mode = fmt.Sprintf("open loop %.0f sessions/s for %s", cfg.Rate, cfg.Duration)
	default:
		rep.Mode = fmt.Sprintf("closed loop %d clients for %s", cfg.Clients, cfg.Duration)
	}

	if cfg.Scenario == ScenarioEcho {
		rep.Mode = fmt.Sprintf("closed loop %d clients for %s", cfg.Clients, cfg.Duration)
		return runEcho(ctx, &cfg, client, rep, logf)
	}

	f, err := Setup(ctx, &cfg, a, logf)
	if f != nil {
		if cfg.Keep {
			logf("--keep: run %s's department, doctors, slots and patients stay on the server", f.RunID)
		} else {
			defer func() {
				if cerr := Cleanup(&cfg, a, f, logf); cerr != nil {
					err = errors.Join(err, cerr)
				}
			}()
		}
	}
	if err != nil {
		return nil, err
	}
	rep.RunID, rep.OpensAt = f.RunID, f.OpensAt
	rep.Setup = SetupReport{Doctors: len(f.Doctors), Slots: len(f.Slots), Places: cfg.places(), Patients: len(f.Patients), Seconds: f.SetupTook.Seconds()}
	logf("setup done in %.1fs (run %s)", f.SetupTook.Seconds(), f.RunID)

	rec := NewRecorder(f.OpensAt.Add(-cfg.Early))
	r := newRunner(ctx, &cfg, f, client, rec, logf)
	var took time.Duration
	var cs []*contender
	if cfg.Bots > 0 {
		took, cs, err = r.botsLoad()
	} else {
		_, took, err = r.load()
	}
	if err != nil {
		return nil, fmt.Errorf("interrupted: %w", err)
	}
	secs := took.Seconds()
	rep.Load = LoadReport{Seconds: secs, Sessions: r.started.Load(), Dropped: r.dropped.Load(), NoIdlePatient: r.noPatient.Load()}
	rep.Endpoints[EndpointBook.String()] = endpointReport(rec, EndpointBook, secs)
	if cfg.ReadRatio > 0 {
		rep.Endpoints[EndpointList.String()] = endpointReport(rec, EndpointList, secs)
	}
	if cfg.Bots > 0 {
		rep.Fairness = r.fairness(cs)
		if f.OpeningID != 0 {
			rep.Endpoints[EndpointQueue.String()] = endpointReport(rec, EndpointQueue, secs)
			if rep.Fairness.Server, err = serverReport(ctx, a, f); err != nil {
				return nil, fmt.Errorf("the opening's report: %w", err)
			}
		}
	}
	rep.Sold, rep.Places = r.sold.Load(), cfg.places()
	if first := r.firstSale.Load(); first != 0 {
		v := time.Unix(0, first).Sub(f.OpensAt).Seconds()
		rep.FirstSaleAfter = &v
		last := time.Unix(0, r.lastSale.Load()).Sub(f.OpensAt).Seconds()
		rep.LastSaleAfter = &last
		if rep.Sold >= int64(rep.Places) {
			rep.SoldOutAfter = &last
		}
		if last > 0 {
			rep.SoldPerSecond = float64(rep.Sold) / last
		}
	}

	if cfg.CompareEcho {
		logf("echo phase: %d clients for %s", cfg.Clients, cfg.EchoDuration)
		rep.Echo = echoPhase(r, &cfg, rec, f.AdminToken, cfg.EchoDuration)
		if !rep.Echo.Missing && rep.Echo.EchoPerSecond > 0 {
			rep.Echo.BookToEcho = rep.Endpoints[EndpointBook.String()].PerSecond / rep.Echo.EchoPerSecond
			rep.Echo.SoldToEcho = rep.SoldPerSecond / rep.Echo.EchoPerSecond
		}
		rep.Endpoints[EndpointEcho.String()] = endpointReport(rec, EndpointEcho, rep.Echo.Seconds)
	}
	r.errMu.Lock()
	rep.Errors = r.errSamples
	r.errMu.Unlock()

	logf("verifying through the API")
	v, err := verifyRun(ctx, a, f, &cfg)
	if err != nil {
		v = Verification{Passed: false, Checks: []Check{{Name: "read the server's state", Result: Fail, Detail: err.Error()}}}
	}
	rep.Verification = &v
	if cfg.Out != "" {
		if err := rep.writeFiles(cfg.Out, cfg.PlotFormat); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// validate checks cfg and fills defaults; echo needs no signer.
func validate(cfg *Config) error {
	if cfg.Scenario == ScenarioEcho && cfg.Signer == nil {
		// Validate insists on a signer for every scenario that books.
		s, err := auth.NewSigner(make([]byte, auth.MinSecretLen))
		if err != nil {
			return err
		}
		cfg.Signer = s
		err = cfg.Validate()
		cfg.Signer = nil
		return err
	}
	return cfg.Validate()
}

// echoPhase runs the echo endpoint closed loop and summarizes it.
func echoPhase(r *runner, cfg *Config, rec *Recorder, token string, d time.Duration) *EchoComparison {
	_, took, missing := r.echo(d, token)
	ec := &EchoComparison{Clients: cfg.Clients, Seconds: took.Seconds(), Missing: missing}
	if !missing {
		c := rec.Counts(EndpointEcho)
		ec.EchoPerSecond = n64(c[OutOK], took.Seconds())
	}
	return ec
}

// runEcho is the echo scenario alone: no setup, no verification. With a
// signer it sends an admin token, as a booking sends a patient's.
func runEcho(ctx context.Context, cfg *Config, client *http.Client, rep *Report, logf func(string, ...any)) (*Report, error) {
	token := ""
	if cfg.Signer != nil {
		t, err := cfg.Signer.Mint(auth.RoleAdmin, "rush-echo", tokenTTL)
		if err != nil {
			return nil, err
		}
		token = t
	}
	rep.RunID = newRunID()
	rec := NewRecorder(time.Now())
	r := newRunner(ctx, cfg, &Fixture{RunID: rep.RunID}, client, rec, logf)
	logf("echo: %d clients for %s against %s", cfg.Clients, cfg.Duration, r.echoURL)
	rep.Echo = echoPhase(r, cfg, rec, token, cfg.Duration)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	rep.Load.Seconds = rep.Echo.Seconds
	rep.Endpoints[EndpointEcho.String()] = endpointReport(rec, EndpointEcho, rep.Echo.Seconds)
	r.errMu.Lock()
	rep.Errors = r.errSamples
	r.errMu.Unlock()
	if rep.Echo.Missing {
		return rep, errors.New("POST /bench/echo answered 404: start the server with --bench-endpoints")
	}
	if cfg.Out != "" {
		if err := rep.writeFiles(cfg.Out, cfg.PlotFormat); err != nil {
			return rep, err
		}
	}
	return rep, nil
}
