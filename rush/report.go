package rush

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Report is the outcome of a run, written as report.json.
type Report struct {
	RunID    string    `json:"runId"`
	Scenario string    `json:"scenario"`
	Target   string    `json:"target"`
	Mode     string    `json:"mode"`
	Started  time.Time `json:"startedAt"`
	OpensAt  time.Time `json:"opensAt,omitzero"`

	Settings Settings    `json:"settings"`
	Setup    SetupReport `json:"setup"`
	Load     LoadReport  `json:"load"`

	// Endpoints by name: book, list, queue, echo.
	Endpoints map[string]*EndpointReport `json:"endpoints"`

	Sold   int64 `json:"sold"`
	Places int   `json:"places"`
	// FirstSaleAfter and SoldOutAfter are seconds from the opening time;
	// SoldOutAfter is absent when not every place was sold.
	FirstSaleAfter *float64 `json:"firstSaleAfterSeconds,omitempty"`
	LastSaleAfter  *float64 `json:"lastSaleAfterSeconds,omitempty"`
	SoldOutAfter   *float64 `json:"soldOutAfterSeconds,omitempty"`
	// SoldPerSecond is places sold per second from the opening time to
	// the last sale: the booking throughput while there was something
	// to sell.
	SoldPerSecond float64 `json:"soldPerSecond,omitempty"`

	// Fairness is the bots scenario's: who got the places, in what order.
	Fairness *Fairness `json:"fairness,omitempty"`

	// Echo compares booking with the database-free echo endpoint measured
	// in the same run.
	Echo *EchoComparison `json:"echoComparison,omitempty"`

	// Errors are examples of unexpected answers (at most ten).
	Errors       []string      `json:"errors,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
	Files        []string      `json:"files,omitempty"`
}

// Settings are the knobs the run used.
type Settings struct {
	Rate            float64 `json:"rate,omitempty"`
	Clients         int     `json:"clients,omitempty"`
	Duration        string  `json:"duration"`
	Early           string  `json:"early,omitempty"`
	Patients        int     `json:"patients,omitempty"`
	Slots           int     `json:"slots,omitempty"`
	Capacity        int     `json:"capacity,omitempty"`
	GroupSlots      int     `json:"groupSlots,omitempty"`
	GroupCapacity   int     `json:"groupCapacity,omitempty"`
	ReadRatio       float64 `json:"readRatio"`
	Timeout         string  `json:"timeout"`
	Retries         int     `json:"retries"`
	Switch          int     `json:"switch"`
	Sessions        int     `json:"sessions"`
	StopWhenSoldOut bool    `json:"stopWhenSoldOut"`
	Bots            int     `json:"bots,omitempty"`
	WaitingRoom     bool    `json:"waitingRoom,omitempty"`
}

// SetupReport describes what setup created.
type SetupReport struct {
	Doctors  int     `json:"doctors"`
	Slots    int     `json:"slots"`
	Places   int     `json:"places"`
	Patients int     `json:"patients"`
	Seconds  float64 `json:"seconds"`
}

// LoadReport describes the load phase.
type LoadReport struct {
	Seconds  float64 `json:"seconds"`
	Sessions int64   `json:"sessions"`
	// Dropped sessions or reads were not sent because MaxInFlight requests
	// were already waiting: the server was not keeping up with the rate.
	Dropped int64 `json:"dropped"`
	// NoIdlePatient counts open-loop ticks that found every patient busy
	// or done.
	NoIdlePatient int64 `json:"noIdlePatient"`
}

// EndpointReport is one endpoint's traffic.
type EndpointReport struct {
	Requests  int64                     `json:"requests"`
	PerSecond float64                   `json:"perSecond"`
	Latency   Latency                   `json:"latency"`
	Outcomes  map[string]*OutcomeReport `json:"outcomes"`
	Series    []Point                   `json:"series,omitempty"`

	order []Outcome
	dist  snapshot
}

// OutcomeReport is one outcome of an endpoint.
type OutcomeReport struct {
	Count     int64   `json:"count"`
	PerSecond float64 `json:"perSecond"`
	Latency   Latency `json:"latency"`
}

// EchoComparison sets booking throughput against a no-database endpoint.
type EchoComparison struct {
	Clients       int     `json:"clients"`
	Seconds       float64 `json:"seconds"`
	EchoPerSecond float64 `json:"echoPerSecond"`
	// Missing is true when the server answered 404: start it with
	// --bench-endpoints.
	Missing bool `json:"missing,omitempty"`
	// BookToEcho is booking requests/s (all outcomes) over echo requests/s;
	// SoldToEcho is places sold/s over echo requests/s.
	BookToEcho float64 `json:"bookToEcho,omitempty"`
	SoldToEcho float64 `json:"soldToEcho,omitempty"`
}

// endpointReport builds an endpoint's report over a phase of secs seconds.
func endpointReport(rec *Recorder, ep Endpoint, secs float64) *EndpointReport {
	s := rec.snapshot(ep)
	er := &EndpointReport{Latency: s.all, Outcomes: map[string]*OutcomeReport{}, Series: s.series, dist: s}
	for o, n := range s.counts {
		if n == 0 {
			continue
		}
		er.Requests += n
		er.Outcomes[Outcome(o).String()] = &OutcomeReport{Count: n, PerSecond: n64(n, secs), Latency: s.byOut[o]}
		er.order = append(er.order, Outcome(o))
	}
	er.PerSecond = n64(er.Requests, secs)
	return er
}

func n64(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// PrintSummary writes the human summary.
func (r *Report) PrintSummary(w io.Writer) {
	fmt.Fprintf(w, "\nslotd rush — scenario %s, %s, target %s (run %s)\n", r.Scenario, r.Mode, r.Target, r.RunID)
	if r.Setup.Patients > 0 {
		fmt.Fprintf(w, "setup: %d doctors, %d slots (%d places), %d patients in %.1fs; opened at %s\n",
			r.Setup.Doctors, r.Setup.Slots, r.Setup.Places, r.Setup.Patients, r.Setup.Seconds, r.OpensAt.Format("15:04:05.000"))
		fmt.Fprintf(w, "load: %.1fs, %d sessions, %d dropped (in-flight bound), %d ticks without an idle patient\n",
			r.Load.Seconds, r.Load.Sessions, r.Load.Dropped, r.Load.NoIdlePatient)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-22s %9s %9s %9s %9s %9s %9s\n", "endpoint / outcome", "requests", "per s", "p50 ms", "p95 ms", "p99 ms", "max ms")
	for _, ep := range []Endpoint{EndpointBook, EndpointList, EndpointQueue, EndpointEcho} {
		er := r.Endpoints[ep.String()]
		if er == nil || er.Requests == 0 {
			continue
		}
		fmt.Fprintf(w, "%-22s %9d %9.1f %9.2f %9.2f %9.2f %9.2f\n", ep.String()+" (all)", er.Requests, er.PerSecond,
			er.Latency.P50, er.Latency.P95, er.Latency.P99, er.Latency.Max)
		for _, o := range er.order {
			or := er.Outcomes[o.String()]
			fmt.Fprintf(w, "  %-20s %9d %9.1f %9.2f %9.2f %9.2f %9.2f\n", o.String(), or.Count, or.PerSecond,
				or.Latency.P50, or.Latency.P95, or.Latency.P99, or.Latency.Max)
		}
	}
	if r.Places > 0 {
		fmt.Fprintf(w, "\nsold %d of %d places", r.Sold, r.Places)
		if r.FirstSaleAfter != nil {
			fmt.Fprintf(w, "; first sale %s after opening", secs(*r.FirstSaleAfter))
		}
		if r.SoldOutAfter != nil {
			fmt.Fprintf(w, "; sold out %s after opening", secs(*r.SoldOutAfter))
		} else if r.LastSaleAfter != nil {
			fmt.Fprintf(w, "; not sold out (last sale %s after opening)", secs(*r.LastSaleAfter))
		}
		if r.SoldPerSecond > 0 {
			fmt.Fprintf(w, "; %.0f places/s while selling", r.SoldPerSecond)
		}
		fmt.Fprintln(w)
	}
	if r.Fairness != nil {
		r.Fairness.print(w)
	}
	if e := r.Echo; e != nil {
		if e.Missing {
			fmt.Fprintln(w, "echo: POST /bench/echo answered 404: start the server with --bench-endpoints")
		} else {
			fmt.Fprintf(w, "echo: %d clients, %.0f req/s", e.Clients, e.EchoPerSecond)
			if e.BookToEcho > 0 {
				fmt.Fprintf(w, "; booking/echo = %.3f (requests), %.3f (places sold)", e.BookToEcho, e.SoldToEcho)
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Errors) > 0 {
		fmt.Fprintln(w, "\nunexpected answers (examples):")
		for _, e := range r.Errors {
			fmt.Fprintln(w, "  "+e)
		}
	}
	if v := r.Verification; v != nil {
		fmt.Fprintln(w, "\nverification:")
		for _, c := range v.Checks {
			fmt.Fprintf(w, "  %s  %s: %s\n", c.Result, c.Name, c.Detail)
		}
		if v.Passed {
			fmt.Fprintln(w, "RESULT: PASS")
		} else {
			fmt.Fprintln(w, "RESULT: FAIL")
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(w, "report: %s\n", strings.Join(r.Files, ", "))
	}
}

func secs(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0fms", s*1000)
	}
	return fmt.Sprintf("%.2fs", s)
}

// writeFiles writes report.json and the plots, in format (svg, png or
// pdf), into dir.
func (r *Report) writeFiles(dir, format string) error {
	if format == "" {
		format = "svg"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []string
	plots := []struct {
		name string
		draw func(string) error
	}{
		{"latency." + format, r.plotLatency},
		{"histogram." + format, r.plotHistogram},
		{"throughput." + format, r.plotThroughput},
	}
	for _, pl := range plots {
		p := filepath.Join(dir, pl.name)
		if err := pl.draw(p); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", pl.name, err))
			continue
		}
		r.Files = append(r.Files, p)
	}
	jp := filepath.Join(dir, "report.json")
	r.Files = append([]string{jp}, r.Files...)
	if err := r.WriteJSON(jp); err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("plots: %s", strings.Join(errs, "; "))
	}
	return nil
}

// Passed reports whether the run's verification passed (an echo run, which
// verifies nothing, passes).
func (r *Report) Passed() bool { return r.Verification == nil || r.Verification.Passed }
