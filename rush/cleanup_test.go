package rush

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slotd/slotd/auth"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/sqlite"
)

// smallRush is a vaccination rush of 2 slots × 3 places and 12 patients
// against url, logging into log.
func smallRush(t *testing.T, url string, signer *auth.Signer, log *bytes.Buffer) Config {
	t.Helper()
	cfg, err := Preset(ScenarioVaccination)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Target, cfg.Signer, cfg.Out, cfg.Log = url, signer, "", log
	cfg.Slots, cfg.Capacity, cfg.Patients = 2, 3, 12
	cfg.Rate, cfg.Duration, cfg.OpenIn, cfg.SetupWorkers = 100, 2*time.Second, time.Second, 4
	return cfg
}

// leftovers is what a run left that patients or staff would meet: active
// doctors, patients not erased, open slots of those doctors, active
// appointments.
type leftovers struct {
	activeDoctors, allDoctors, livePatients, openSlots int
	holdings                                           booking.Holdings
}

func leftOver(t *testing.T, s *sqlite.Store) leftovers {
	t.Helper()
	ctx := context.Background()
	var l leftovers
	all, err := s.ListAllDoctors(ctx, 0, booking.Page{})
	if err != nil {
		t.Fatal(err)
	}
	l.allDoctors = len(all)
	for _, d := range all {
		if d.Active {
			l.activeDoctors++
		}
		slots, err := s.ListSlots(ctx, d.ID, time.Now(), time.Now().Add(30*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		for _, sl := range slots {
			if sl.Status == booking.SlotOpen {
				l.openSlots++
			}
		}
	}
	ps, err := s.ListPatients(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.ErasedAt == nil || strings.Contains(p.Name, "rush") {
			l.livePatients++
		}
	}
	if l.holdings, err = s.Holdings(ctx); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRunCleansUp: a run removes what it created: every patient erased
// (through the API's erasure, which cancels their appointments), every slot
// closed, every doctor deactivated, so the public catalogue lists none of
// them; the demo's own data stays as it was. --keep keeps everything, and
// the next run then refuses the target unless told --allow-real-data.
func TestRunCleansUp(t *testing.T) {
	url, signer, store := startServerStore(t, 0)
	ctx := context.Background()
	// A demo database, with a patient of the demo's own.
	if fill, err := store.ClaimDemo(ctx); err != nil || !fill {
		t.Fatalf("claim demo: %v %v", fill, err)
	}
	demo, err := store.CreatePatient(ctx, booking.Patient{Name: "Demo patient"})
	if err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	rep, err := Run(ctx, smallRush(t, url, signer, &log))
	if err != nil || !rep.Passed() {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if rep.Sold == 0 {
		t.Fatalf("nothing sold, so cleanup cancelled nothing:\n%s", log.String())
	}
	l := leftOver(t, store)
	want := booking.Holdings{Demo: true, Patients: 1}
	if l.activeDoctors != 0 || l.allDoctors == 0 || l.openSlots != 0 || l.livePatients != 1 || l.holdings != want {
		t.Fatalf("after the run: %+v; want no active doctor, no open slot, only the demo's patient, holdings %+v\n%s", l, want, log.String())
	}
	if p, err := store.GetPatient(ctx, demo.ID); err != nil || p.ErasedAt != nil || p.Name != "Demo patient" {
		t.Fatalf("the demo's patient: %+v, %v", p, err)
	}
	var doctors struct{ Items []booking.Doctor }
	if err := (&api{c: newHTTPClient(5*time.Second, 1), base: url}).call(ctx, "GET", "/api/doctors", "", nil, &doctors); err != nil || len(doctors.Items) != 0 {
		t.Fatalf("public doctors after the run: %+v, %v", doctors, err)
	}
	// Its department, without a doctor now, is no longer offered either.
	if all, err := store.ListAllDepartments(ctx, booking.Page{}); err != nil || len(all) != 1 {
		t.Fatalf("departments for staff after the run: %+v, %v; want the run's", all, err)
	}
	if deps := publicDepartments(t, url); len(deps) != 0 {
		t.Fatalf("public departments after the run: %+v", deps)
	}

	// --keep keeps the run's patients.
	log.Reset()
	cfg := smallRush(t, url, signer, &log)
	cfg.Keep = true
	if rep, err := Run(ctx, cfg); err != nil || !rep.Passed() {
		t.Fatalf("run --keep: %v\n%s", err, log.String())
	}
	if l := leftOver(t, store); l.activeDoctors == 0 || l.livePatients != 1+12 {
		t.Fatalf("after --keep: %+v, want the run's doctors active and its 12 patients", l)
	}
	if !strings.Contains(log.String(), "--keep") {
		t.Errorf("the log does not say the data was kept:\n%s", log.String())
	}
	if deps := publicDepartments(t, url); len(deps) != 1 {
		t.Fatalf("public departments after --keep: %+v; want the kept run's", deps)
	}
}

// publicDepartments is what GET /api/departments lists.
func publicDepartments(t *testing.T, url string) []booking.Department {
	t.Helper()
	var page struct{ Items []booking.Department }
	if err := (&api{c: newHTTPClient(5*time.Second, 1), base: url}).call(context.Background(), "GET", "/api/departments", "", nil, &page); err != nil {
		t.Fatal(err)
	}
	return page.Items
}

// TestRunRefusesRealData: a database with a patient the demo did not load
// is a clinic's: the run refuses it before creating anything, naming the
// override; --allow-real-data runs, and cleans up after itself, leaving
// the clinic's patient alone.
func TestRunRefusesRealData(t *testing.T) {
	url, signer, store := startServerStore(t, 0)
	ctx := context.Background()
	real, err := store.CreatePatient(ctx, booking.Patient{Name: "Real patient"})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	_, err = Run(ctx, smallRush(t, url, signer, &log))
	if !errors.Is(err, ErrRealData) || !strings.Contains(err.Error(), "--allow-real-data") || !strings.Contains(err.Error(), "1 patients") {
		t.Fatalf("run against real data: %v; want ErrRealData naming --allow-real-data and the count", err)
	}
	if deps, err := store.ListAllDepartments(ctx, booking.Page{}); err != nil || len(deps) != 0 {
		t.Fatalf("refused, yet departments %+v (%v)", deps, err)
	}

	cfg := smallRush(t, url, signer, &log)
	cfg.AllowRealData = true
	if rep, err := Run(ctx, cfg); err != nil || !rep.Passed() {
		t.Fatalf("run --allow-real-data: %v\n%s", err, log.String())
	}
	l := leftOver(t, store)
	if l.activeDoctors != 0 || l.livePatients != 1 || l.holdings != (booking.Holdings{Patients: 1}) {
		t.Fatalf("after the run: %+v; want only the clinic's patient", l)
	}
	if p, err := store.GetPatient(ctx, real.ID); err != nil || p.ErasedAt != nil {
		t.Fatalf("the clinic's patient: %+v, %v", p, err)
	}
}

// cancelOn cancels when a line containing word is written.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	word   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(b, []byte(c.word)) {
		c.cancel()
	}
	return c.buf.Write(b)
}

// TestRunCleansUpWhenInterrupted: interrupted (Ctrl-C cancels the run's
// context) after setup, the run still removes what it created.
func TestRunCleansUpWhenInterrupted(t *testing.T) {
	url, signer, store := startServerStore(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log bytes.Buffer
	cfg := smallRush(t, url, signer, &log)
	w := &cancelOn{word: "setup done", cancel: cancel}
	cfg.Log = w
	_, err := Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("interrupted run: %v, want interrupted", err)
	}
	w.mu.Lock()
	out := w.buf.String()
	w.mu.Unlock()
	if l := leftOver(t, store); l.activeDoctors != 0 || l.livePatients != 0 || l.openSlots != 0 || l.holdings != (booking.Holdings{}) {
		t.Fatalf("after the interrupt: %+v, want nothing left\n%s", l, out)
	}
}
