package rush

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/httpapi"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// startServer runs the real API over a fresh SQLite database, as
// `slotd serve` wires it, and returns its URL and token signer.
func startServer(t *testing.T, bookingRate int) (string, *auth.Signer) {
	t.Helper()
	url, signer, _ := startServerStore(t, bookingRate)
	return url, signer
}

// startServerStore is startServer with the server's store, for tests that
// look at what a run left behind.
func startServerStore(t *testing.T, bookingRate int) (string, *auth.Signer, *sqlite.Store) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "slotd.db")
	if err := sqlite.Migrate(ctx, path); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	store, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	signer, err := auth.NewSigner(bytes.Repeat([]byte("s"), auth.MinSecretLen))
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Config{
		Service: service.NewService(store, service.Options{BookingRate: bookingRate}), Store: store, Signer: signer,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		store.Close()
	})
	return srv.URL, signer, store
}

// TestVaccinationRush runs a small vaccination-like rush against a real
// server and checks the counts are exact and the verification passes.
func TestVaccinationRush(t *testing.T) {
	url, signer := startServer(t, 0)
	cfg, err := Preset(ScenarioVaccination)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log bytes.Buffer
	cfg.Target, cfg.Signer, cfg.Out, cfg.Log = url, signer, out, &log
	cfg.Slots, cfg.Capacity, cfg.Patients = 3, 5, 40
	cfg.Rate, cfg.Duration = 200, 5*time.Second
	cfg.OpenIn = time.Second
	cfg.Early = 100 * time.Millisecond // some clicks arrive before opening
	cfg.SetupWorkers = 8
	cfg.ReadRatio = 0.5

	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	var sum bytes.Buffer
	rep.PrintSummary(&sum)
	t.Log("\n" + sum.String())
	if !rep.Passed() {
		t.Fatalf("verification failed")
	}
	if rep.Sold != 15 || rep.Places != 15 {
		t.Fatalf("sold %d of %d places, want 15 of 15", rep.Sold, rep.Places)
	}
	if rep.SoldOutAfter == nil {
		t.Errorf("no sell-out time although every place was sold")
	}
	book := rep.Endpoints["book"]
	if got := book.Outcomes[OutCreated.String()]; got == nil || got.Count != 15 {
		t.Errorf("201 answers = %+v, want exactly 15", got)
	}
	for _, o := range []Outcome{OutServerError, OutClientError, OutTransport, OutAlreadyBooked, OutConflict} {
		if oc := book.Outcomes[o.String()]; oc != nil {
			t.Errorf("%d unexpected %s answers: %v", oc.Count, o, rep.Errors)
		}
	}
	// 40 patients, one session each: every one of them clicked and then
	// either booked or ran out of slots to switch to.
	if rep.Load.Sessions != 40 {
		t.Errorf("%d sessions, want 40 (one per patient)", rep.Load.Sessions)
	}
	for _, c := range rep.Verification.Checks {
		if c.Result == Fail {
			t.Errorf("%s: %s", c.Name, c.Detail)
		}
	}
	for _, f := range []string{"report.json", "latency.svg", "histogram.svg", "throughput.svg"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "report.json"))
	if !strings.Contains(string(b), `"passed": true`) {
		t.Errorf("report.json does not record the verdict")
	}
}

// TestSeriesRush runs a small vaccination-series rush: every click books
// two doses; every place is sold in whole series and the verification
// (each series whole or absent among its checks) passes.
func TestSeriesRush(t *testing.T) {
	url, signer := startServer(t, 0)
	cfg, err := Preset(ScenarioSeries)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cfg.Target, cfg.Signer, cfg.Log = url, signer, &log
	cfg.Slots, cfg.Capacity, cfg.Patients = 3, 5, 40
	cfg.Rate, cfg.Duration = 200, 5*time.Second
	cfg.OpenIn = time.Second
	cfg.SetupWorkers = 8

	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	var sum bytes.Buffer
	rep.PrintSummary(&sum)
	t.Log("\n" + sum.String())
	if !rep.Passed() || rep.Sold != 30 || rep.Places != 30 {
		t.Fatalf("passed %v, sold %d of %d places, want 30 of 30", rep.Passed(), rep.Sold, rep.Places)
	}
	whole := false
	for _, c := range rep.Verification.Checks {
		whole = whole || (c.Name == "every series whole or absent" && c.Result == Pass)
	}
	if !whole {
		t.Errorf("the series check did not run: %+v", rep.Verification.Checks)
	}
	if got := rep.Endpoints["book"].Outcomes[OutCreated.String()]; got == nil || got.Count != 15 {
		t.Errorf("201 answers = %+v, want exactly 15 series", got)
	}
}

// TestHotClosedLoop sells one slot with closed-loop clients and stops at
// sell-out.
func TestHotClosedLoop(t *testing.T) {
	url, signer := startServer(t, 1000)
	cfg, err := Preset(ScenarioHot)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target, cfg.Signer = url, signer
	cfg.Clients, cfg.Capacity, cfg.Patients = 8, 30, 40
	cfg.Duration, cfg.OpenIn = 10*time.Second, time.Second
	cfg.SetupWorkers = 8
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	rep.PrintSummary(&sum)
	t.Log("\n" + sum.String())
	if !rep.Passed() || rep.Sold != 30 {
		t.Fatalf("passed=%v sold=%d, want a pass and 30 sold", rep.Passed(), rep.Sold)
	}
	if rep.Load.Seconds > 8 {
		t.Errorf("load ran %.1fs: it should stop at sell-out", rep.Load.Seconds)
	}
}

// TestVerifyOversold feeds the verifier a fabricated oversold result: it
// must fail, and say which slot.
func TestVerifyOversold(t *testing.T) {
	exp := Expected{
		Capacity: map[int64]int{7: 1, 8: 2},
		Receipts: []Receipt{
			{PatientID: 1, SlotID: 7, AppointmentID: 100, Status: 201},
			{PatientID: 2, SlotID: 7, AppointmentID: 101, Status: 201},
			{PatientID: 3, SlotID: 8, AppointmentID: 102, Status: 201},
		},
	}
	obs := Observed{
		Slots: map[int64]SlotState{7: {Capacity: 1, Booked: 2}, 8: {Capacity: 2, Booked: 1}},
		Appointments: map[int64][]Appointment{
			1: {{ID: 100, SlotID: 7, PatientID: 1, Status: "BOOKED"}},
			2: {{ID: 101, SlotID: 7, PatientID: 2, Status: "BOOKED"}},
			3: {{ID: 102, SlotID: 8, PatientID: 3, Status: "BOOKED"}},
		},
		Reconciliation: &Reconciliation{Available: false},
	}
	v := Verify(exp, obs)
	if v.Passed {
		t.Fatalf("an oversold slot passed verification: %+v", v.Checks)
	}
	c := find(t, v, "no slot over capacity")
	if c.Result != Fail || !strings.Contains(c.Detail, "slot 7") {
		t.Errorf("capacity check = %+v, want a FAIL naming slot 7", c)
	}
	if c := find(t, v, "reconciliation report"); c.Result != Skip {
		t.Errorf("reconciliation = %+v, want SKIP when unavailable", c)
	}
}

// TestVerifyLostAndDuplicate: a confirmed booking that disappeared and a
// patient holding a slot twice both fail; the clean variant passes.
func TestVerifyLostAndDuplicate(t *testing.T) {
	exp := Expected{
		Capacity: map[int64]int{7: 5},
		Receipts: []Receipt{{PatientID: 1, SlotID: 7, AppointmentID: 100, Status: 201}},
		Refused:  map[int64]bool{2: true},
	}
	clean := Observed{
		Slots:        map[int64]SlotState{7: {Capacity: 5, Booked: 1}},
		Appointments: map[int64][]Appointment{1: {{ID: 100, SlotID: 7, Status: "BOOKED"}}, 2: nil},
		ByID:         map[int64]Appointment{100: {ID: 100, SlotID: 7, Status: "BOOKED"}},
	}
	if v := Verify(exp, clean); !v.Passed {
		t.Fatalf("a clean run failed: %+v", v.Checks)
	}

	lost := clean
	lost.Appointments = map[int64][]Appointment{1: {{ID: 100, SlotID: 7, Status: "CANCELLED"}}, 2: nil}
	lost.Slots = map[int64]SlotState{7: {Capacity: 5, Booked: 0}}
	if c := find(t, Verify(exp, lost), "every confirmed booking is still there"); c.Result != Fail {
		t.Errorf("a lost booking passed: %+v", c)
	}

	dup := clean
	dup.Slots = map[int64]SlotState{7: {Capacity: 5, Booked: 3}}
	dup.Appointments = map[int64][]Appointment{
		1: {{ID: 100, SlotID: 7, Status: "BOOKED"}},
		2: {{ID: 103, SlotID: 7, Status: "BOOKED"}, {ID: 104, SlotID: 7, Status: "HELD"}},
	}
	v := Verify(exp, dup)
	for _, name := range []string{"nobody twice in a slot", "refused patients hold nothing", "places sold = confirmed bookings"} {
		if c := find(t, v, name); c.Result != Fail {
			t.Errorf("%s passed on a duplicate: %+v", name, c)
		}
	}
}

func find(t *testing.T, v Verification, name string) Check {
	t.Helper()
	for _, c := range v.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, v.Checks)
	return Check{}
}

func TestProblemType(t *testing.T) {
	for body, want := range map[string]string{
		`{"type":"/problems/slot-full","title":"x"}`:      "/problems/slot-full",
		`{"title":"x", "type": "/problems/not-open-yet"}`: "/problems/not-open-yet",
		`{}`:          "",
		`{"type":12}`: "",
	} {
		if got := problemType([]byte(body)); got != want {
			t.Errorf("problemType(%s) = %q, want %q", body, got, want)
		}
	}
}

// TestEcho drives a stand-in echo endpoint closed loop.
func TestEcho(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /bench/echo", func(w http.ResponseWriter, r *http.Request) {
		var v map[string]any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cfg, err := Preset(ScenarioEcho)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target, cfg.Clients, cfg.Duration = srv.URL, 4, 300*time.Millisecond
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Echo == nil || rep.Echo.Missing || rep.Echo.EchoPerSecond <= 0 {
		t.Fatalf("echo = %+v, want a positive rate", rep.Echo)
	}
	if er := rep.Endpoints["echo"]; er == nil || er.Outcomes[OutOK.String()] == nil || len(er.Outcomes) != 1 {
		t.Fatalf("echo outcomes = %+v, want only 200s", er)
	}
}

// A proxy's 502/504 lost the server's answer: the click is retried with
// its key (transport), not counted as a refusal; a 500 stays an error.
func TestClassifyGatewayErrors(t *testing.T) {
	for status, want := range map[int]Outcome{502: OutTransport, 504: OutTransport, 500: OutServerError, 503: OutUnavailable} {
		if got := classify(EndpointBook, status, []byte("<html>")); got != want {
			t.Errorf("%d: %v, want %v", status, got, want)
		}
	}
}

// The open loop warms a connection for each session started early (they
// all press again at the opening) and a tenth of a second's more, so that
// the opening dials none.
func TestWarmConnections(t *testing.T) {
	var opened, arrived atomic.Int64
	var want int64
	var all chan struct{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each request holds its connection until all have arrived, so
		// that none is reused for another.
		if arrived.Add(1) == want {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(2 * time.Second):
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for _, tc := range []struct {
		rate  float64
		early time.Duration
		want  int64
	}{
		{1000, 200 * time.Millisecond, 300},
		{1000, 0, 100},
		{100, 0, 64},
	} {
		opened.Store(0)
		arrived.Store(0)
		want, all = tc.want, make(chan struct{})
		cfg := &Config{Target: srv.URL, Rate: tc.rate, Early: tc.early, MaxInFlight: 2000}
		c := newHTTPClient(5*time.Second, cfg.MaxInFlight)
		newRunner(context.Background(), cfg, &Fixture{}, c, nil, t.Logf).warm()
		c.CloseIdleConnections()
		if got := opened.Load(); got != tc.want {
			t.Errorf("rate %v, early %v: %d connections opened, want %d", tc.rate, tc.early, got, tc.want)
		}
	}
}
