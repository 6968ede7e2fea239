package rush

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/slotd/slotd/auth"
)

// Scenario names.
const (
	ScenarioClinic      = "clinic"
	ScenarioVaccination = "vaccination"
	ScenarioSeries      = "vaccination-series"
	ScenarioHot         = "hot"
	ScenarioEcho        = "echo"
	ScenarioBots        = "bots"
)

// Scenarios lists the presets in the order the help text shows them.
var Scenarios = []string{ScenarioClinic, ScenarioVaccination, ScenarioSeries, ScenarioHot, ScenarioBots, ScenarioEcho}

// Config is one rush: what to create, how to load it, where to report.
//
// The load is made of sessions: a session is one patient clicking "Book" on
// a slot (one Idempotency-Key), retrying that same key on a timeout, 429 or
// 503, and after a 409 slot-full possibly clicking another slot (a new key).
// Open loop (Rate > 0) starts sessions at Rate per second whatever the
// answers; closed loop (Clients > 0) runs Clients workers, each starting its
// next session when the previous one ended.
type Config struct {
	// Target is the server's base URL, e.g. http://127.0.0.1:8080.
	Target string
	// Scenario names the preset the other fields started from.
	Scenario string

	// Rate is sessions started per second (open loop); 0 selects closed loop.
	Rate float64
	// Clients is the number of closed-loop workers.
	Clients int
	// Duration bounds the load phase; it also ends when every patient is
	// done (Sessions) or, with StopWhenSoldOut, when every place is sold.
	Duration time.Duration
	// Early starts the load this long before the slots open, as real users
	// press too early; their requests answer 409 not-open-yet.
	Early time.Duration

	// Patients to create. Each holds a token and books at most one place.
	Patients int
	// Slots and Capacity are the main slots; GroupSlots of GroupCapacity are
	// added beside them (clinic's vaccination slots).
	Slots, Capacity           int
	GroupSlots, GroupCapacity int
	// SlotsPerDoctor spreads slots over doctors (reads list one doctor's day).
	SlotsPerDoctor int
	// Series makes each click book a two-dose series
	// (POST /api/series-bookings): a main slot for dose 1 and its twin,
	// created 22 days later with the same capacity, for dose 2.
	Series bool

	// Bots are extra patients (besides Patients, the people) who retry
	// as fast as they can from the opening on (bots scenario, runBots).
	Bots int
	// WaitingRoom puts the slots behind an announced opening's waiting
	// room (POST /api/admin/openings): everyone joins its queue and books
	// with the admission (Slotd-Admission). It needs Bots.
	WaitingRoom bool
	// PollEvery is how often a person asks for their place in the queue
	// (the page's poll); bots ask as fast as they can.
	PollEvery time.Duration

	// ReadRatio is slot-list reads per session (open loop: at Rate×ReadRatio
	// per second; closed loop: interleaved by each worker).
	ReadRatio float64
	// Timeout is the client timeout of one request; a timed-out booking is
	// retried with the same Idempotency-Key.
	Timeout time.Duration
	// Retries bounds the retries of one click (timeout, 429, 503, key in use).
	Retries int
	// Switch is how many other slots a patient tries (each with a new key)
	// after a 409 slot-full within one session.
	Switch int
	// Sessions is the number of sessions per patient (0: unlimited, patients
	// without a place come back until the end).
	Sessions int
	// StopWhenSoldOut ends the load once every place is sold: for a
	// throughput measurement, the cheap refusals after sell-out would only
	// dilute it.
	StopWhenSoldOut bool
	// OpenIn is the margin between the end of setup and the opening time.
	OpenIn time.Duration
	// MaxInFlight bounds open-loop concurrency; a session or read that would
	// exceed it is counted as dropped instead of sent.
	MaxInFlight int
	// SetupWorkers create patients concurrently.
	SetupWorkers int

	// CompareEcho adds an echo phase (POST /bench/echo, Clients closed-loop
	// workers for EchoDuration) after the load, so that booking and a
	// database-free endpoint are measured in the same run.
	CompareEcho  bool
	EchoDuration time.Duration

	// VerifySample bounds the appointments fetched one by one with
	// GET /api/appointments/{id} (0: all); every patient with a confirmed
	// booking is checked through GET /api/me/appointments regardless.
	VerifySample int

	// Out is the report directory ("" writes none).
	Out string
	// PlotFormat is svg (the default), png or pdf.
	PlotFormat string
	// Signer mints the admin and patient tokens; it must share the server's
	// secret.
	Signer *auth.Signer
	// Keep leaves what setup created on the server, for inspection;
	// otherwise the run removes it at the end (Cleanup).
	Keep bool
	// AllowRealData runs against a server whose database holds patients
	// or active appointments the demo did not load; otherwise such a
	// target is refused before anything is created.
	AllowRealData bool

	// Progress receives the progress (nil: none): on a terminal one line
	// rewritten every second, elsewhere a whole line every few seconds; Log
	// receives setup and phase messages (nil: none).
	Progress io.Writer
	Log      io.Writer
}

// Preset returns the configuration of a named scenario.
func Preset(name string) (Config, error) {
	c := Config{
		Scenario:       name,
		Timeout:        5 * time.Second,
		Retries:        3,
		OpenIn:         3 * time.Second,
		MaxInFlight:    2000,
		SetupWorkers:   32,
		SlotsPerDoctor: 40,
		EchoDuration:   10 * time.Second,
		VerifySample:   2000,
	}
	switch name {
	case ScenarioClinic:
		// The source rush: a popular doctor's 40 slots and a few
		// vaccination slots open at 7:00; 5,000 requests/s for 30 s.
		c.Rate, c.Duration = 5000, 30*time.Second
		c.Patients = 5000
		c.Slots, c.Capacity = 40, 1
		c.GroupSlots, c.GroupCapacity = 4, 10
		c.ReadRatio = 1
		c.Switch = 1
		c.Early = 200 * time.Millisecond
	case ScenarioVaccination:
		// 5,000 places for 20,000 people released at once: each patient
		// has one session and moves on to another slot when one is full.
		c.Rate, c.Duration = 5000, 30*time.Second
		c.Patients = 20000
		c.Slots, c.Capacity = 20, 250
		c.ReadRatio = 0.2
		c.Switch = 3
		c.Sessions = 1
	case ScenarioSeries:
		// vaccination's rush, each click booking dose 1 and dose 2 at
		// once: 5,000 series (10,000 appointments) for 20,000 people.
		c.Rate, c.Duration = 5000, 30*time.Second
		c.Patients = 20000
		c.Slots, c.Capacity = 20, 250
		c.ReadRatio = 0.2
		c.Switch = 3
		c.Sessions = 1
		c.Series = true
	case ScenarioHot:
		// Pure booking throughput on one slot: every click is a new
		// patient, the load stops at sell-out.
		c.Clients, c.Duration = 64, 10*time.Second
		c.Patients = 11000
		c.Slots, c.Capacity = 1, 10000
		c.Sessions = 1
		c.StopWhenSoldOut = true
	case ScenarioBots:
		// An opening of 60 places: 600 people clicking once, a moment
		// after the opening (or after their admission), beside 30 bots
		// retrying as fast as they can; with --waiting-room, everyone
		// through the queue.
		c.Duration = 30 * time.Second
		c.Patients, c.Bots = 600, 30
		c.Slots, c.Capacity = 1, 60
		c.WaitingRoom = true
		c.PollEvery = 2 * time.Second
	case ScenarioEcho:
		c.Clients, c.Duration = 64, 10*time.Second
	default:
		return Config{}, fmt.Errorf("unknown scenario %q (want %s)", name, strings.Join(Scenarios, ", "))
	}
	return c, nil
}

// places is the number of places the configuration creates.
func (c *Config) places() int {
	main := c.Slots * c.Capacity
	if c.Series {
		main *= 2 // the twins of dose 2
	}
	return main + c.GroupSlots*c.GroupCapacity
}

// Validate reports the first inconsistent setting.
func (c *Config) Validate() error {
	u, err := url.Parse(c.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q: want an http(s) URL such as http://127.0.0.1:8080", c.Target)
	}
	c.Target = strings.TrimRight(c.Target, "/")
	switch {
	case c.Signer == nil:
		return errors.New("no token signer: give --auth-secret (the server's) or --db sqlite:PATH")
	case c.Rate < 0 || c.Clients < 0:
		return errors.New("rate and clients must not be negative")
	case c.Rate == 0 && c.Clients == 0 && c.Bots == 0:
		return errors.New("give a rate (open loop) or a number of clients (closed loop)")
	case c.Bots < 0:
		return errors.New("bots must not be negative")
	case c.WaitingRoom && c.Bots == 0:
		return errors.New("the waiting room is the bots scenario's: give bots")
	case c.Bots > 0 && (c.Rate > 0 || c.Clients > 0 || c.Series || c.GroupSlots > 0):
		return errors.New("the bots scenario drives its own people and bots: no rate, clients, series or group slots")
	case c.Rate > 0 && c.Clients > 0 && c.Scenario != ScenarioEcho && !c.CompareEcho:
		return errors.New("give either a rate (open loop) or clients (closed loop), not both")
	case c.Duration <= 0:
		return errors.New("duration must be positive")
	case c.Timeout <= 0:
		return errors.New("timeout must be positive")
	case c.Retries < 0 || c.Switch < 0 || c.Sessions < 0 || c.ReadRatio < 0 || c.Early < 0:
		return errors.New("retries, switch, sessions, read ratio and early must not be negative")
	}
	switch c.PlotFormat {
	case "", "svg", "png", "pdf":
	default:
		return fmt.Errorf("plot format %q: want svg, png or pdf", c.PlotFormat)
	}
	if c.Scenario == ScenarioEcho {
		if c.Clients <= 0 {
			return errors.New("echo is closed loop: give clients")
		}
		return nil
	}
	switch {
	case c.Patients <= 0:
		return errors.New("patients must be positive")
	case c.Slots < 0 || c.GroupSlots < 0 || c.Slots+c.GroupSlots == 0:
		return errors.New("give at least one slot")
	case (c.Slots > 0 && c.Capacity <= 0) || (c.GroupSlots > 0 && c.GroupCapacity <= 0):
		return errors.New("capacity must be positive")
	case c.OpenIn <= 0:
		return errors.New("open-in must be positive: the load waits for slots that open in the future")
	case c.CompareEcho && c.Clients <= 0:
		return errors.New("the echo comparison runs closed loop: give clients")
	}
	if c.SlotsPerDoctor <= 0 {
		c.SlotsPerDoctor = 40
	}
	if c.Bots > 0 && c.Slots > c.SlotsPerDoctor {
		// An opening is one schedule's, and a schedule one doctor's.
		return fmt.Errorf("the bots scenario's slots are one doctor's: at most %d", c.SlotsPerDoctor)
	}
	if c.PollEvery <= 0 {
		c.PollEvery = 2 * time.Second
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 10000
	}
	if c.SetupWorkers <= 0 {
		c.SetupWorkers = 32
	}
	if c.EchoDuration <= 0 {
		c.EchoDuration = c.Duration
	}
	return nil
}
