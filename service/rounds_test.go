package service_test

import (
	"github.com/slotd/slotd/service"

	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/sqlite"
)

var rt0 = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// roundFixture is an open round over a real SQLite store, accepting from
// rt0+1h to rt0+25h, with one slot per room of the given beds.
type roundFixture struct {
	store *sqlite.Store
	svc   *service.Service
	now   *atomic.Int64
	round booking.Round
	slots []booking.Slot
}

func newRoundFixture(t *testing.T, quota int, beds ...int) *roundFixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	f := &roundFixture{store: st, now: &atomic.Int64{}}
	f.now.Store(rt0.Add(time.Hour).UnixNano())
	f.svc = service.NewService(st, service.Options{Now: func() time.Time { return time.Unix(0, f.now.Load()).UTC() }, Timeout: 5 * time.Second})
	f.round, err = st.CreateRound(ctx, booking.Round{Name: "R", OpensAt: rt0.Add(time.Hour), ClosesAt: rt0.Add(25 * time.Hour),
		TermStart: rt0.Add(7 * 24 * time.Hour), TermEnd: rt0.Add(100 * 24 * time.Hour), Quota: quota})
	if err != nil {
		t.Fatal(err)
	}
	var rooms []int64
	for i, b := range beds {
		r, err := st.CreateRoom(ctx, booking.Room{Name: fmt.Sprintf("room-%d", i), TimeZone: "Europe/Berlin", Building: "A", Beds: b})
		if err != nil {
			t.Fatal(err)
		}
		rooms = append(rooms, r.ID)
	}
	if f.slots, err = st.AddRoundSlots(ctx, f.round.ID, rooms); err != nil {
		t.Fatal(err)
	}
	if f.round, err = st.SetRoundState(ctx, f.round.ID, booking.RoundOpen, rt0); err != nil {
		t.Fatal(err)
	}
	return f
}

// phones numbers the students: a phone is one patient's.
var phones atomic.Int64

func (f *roundFixture) patient(t *testing.T) booking.Patient {
	t.Helper()
	p, err := f.store.CreatePatient(context.Background(), booking.Patient{Name: "Student", Phone: fmt.Sprintf("+4930%07d", phones.Add(1)), Email: "s@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// submitDirect stores a PENDING application as another instance would:
// nothing in this Service is woken.
func (f *roundFixture) submitDirect(t *testing.T, patientID, slotID int64, key string) booking.Application {
	t.Helper()
	a, _, err := f.store.SubmitApplication(context.Background(), booking.Application{
		RoundID: f.round.ID, PatientID: patientID, SlotID: slotID, Status: booking.ApplicationPending,
		IdempotencyKey: key, Fingerprint: booking.ApplicationFingerprint(f.round.ID, slotID),
	}, time.Unix(0, f.now.Load()))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (f *roundFixture) get(t *testing.T, id int64) booking.Application {
	t.Helper()
	a, err := f.store.GetApplication(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// waitDecided polls the store until the application is decided.
func (f *roundFixture) waitDecided(t *testing.T, id int64) booking.Application {
	t.Helper()
	var a booking.Application
	testkit.Eventually(t, fmt.Sprintf("application %d to be decided", id), 10*time.Second, func() bool {
		a = f.get(t, id)
		return a.Status != booking.ApplicationPending
	})
	return a
}

func TestProcessRoundDecidesInArrivalOrder(t *testing.T) {
	f := newRoundFixture(t, 1, 1, 2)
	single, double := f.slots[0].ID, f.slots[1].ID
	var apps []booking.Application
	for i := range 250 { // more than one DecideBatch
		slot := single
		if i%2 == 1 {
			slot = double
		}
		apps = append(apps, f.submitDirect(t, f.patient(t).ID, slot, "k"))
	}
	n, err := f.svc.ProcessRound(context.Background(), f.round.ID)
	if err != nil || n != len(apps) {
		t.Fatalf("decided %d of %d: %v", n, len(apps), err)
	}
	// Even ones ask for the single bed, odd ones for the double: the first
	// even and the first two odd win.
	for i, a := range apps {
		got := f.get(t, a.ID)
		want := booking.ApplicationRejected
		if i == 0 || i == 1 || i == 3 {
			want = booking.ApplicationAllocated
		}
		if got.Status != want || (want == booking.ApplicationRejected && got.Reason != booking.CodeSlotFull) ||
			(want == booking.ApplicationAllocated && got.AppointmentID == 0) {
			t.Fatalf("application %d: %+v", i, got)
		}
	}
	if n, err := f.svc.ProcessRound(context.Background(), f.round.ID); err != nil || n != 0 {
		t.Fatalf("second pass decided %d: %v", n, err)
	}
}

func TestSubmitApplicationWakesProcessor(t *testing.T) {
	f := newRoundFixture(t, 1, 1, 1)
	ctx := context.Background()
	var mu sync.Mutex
	changed := map[int64]bool{}
	f.svc.Watch(func(c service.Change) { mu.Lock(); changed[c.SlotID] = true; mu.Unlock() })

	p1, p2 := f.patient(t), f.patient(t)
	a, existed, err := f.svc.SubmitApplication(ctx, f.round.ID, p1.ID, f.slots[0].ID, "k")
	if err != nil || existed || a.Status != booking.ApplicationPending || a.ID == 0 {
		t.Fatalf("%+v %v %v", a, existed, err)
	}
	got := f.waitDecided(t, a.ID)
	if got.Status != booking.ApplicationAllocated {
		t.Fatalf("%+v", got)
	}
	// The decision is visible in the store just before the processor tells
	// the watchers: wait a little for them.
	told := func() bool { mu.Lock(); defer mu.Unlock(); return changed[f.slots[0].ID] }
	if !testkit.Poll(5*time.Second, told) {
		t.Error("the watchers were not told of the allocation")
	}

	// The same key: the same application, now decided.
	again, existed, err := f.svc.SubmitApplication(ctx, f.round.ID, p1.ID, f.slots[0].ID, "k")
	if err != nil || !existed || again.ID != a.ID || again.Status != booking.ApplicationAllocated || again.AppointmentID != got.AppointmentID {
		t.Fatalf("%+v %v %v", again, existed, err)
	}
	if _, _, err := f.svc.SubmitApplication(ctx, f.round.ID, p1.ID, f.slots[1].ID, "k"); booking.ErrorCode(err) != booking.CodeKeyReused {
		t.Fatalf("%v", err)
	}
	// Quota: a second room is rejected with the reason.
	q, _, err := f.svc.SubmitApplication(ctx, f.round.ID, p1.ID, f.slots[1].ID, "k2")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.waitDecided(t, q.ID); got.Status != booking.ApplicationRejected || got.Reason != booking.CodeQuotaExceeded {
		t.Fatalf("%+v", got)
	}
	// Own only.
	if _, err := f.svc.Application(ctx, a.ID, p2.ID); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("%v", err)
	}
	if _, err := f.svc.Application(ctx, a.ID, 0); err != nil {
		t.Fatal(err)
	}

	// Before the opening nothing is stored; after the close only the
	// allocated application's retry is answered.
	f.now.Store(rt0.UnixNano())
	if _, _, err := f.svc.SubmitApplication(ctx, f.round.ID, p2.ID, f.slots[1].ID, "early"); booking.ErrorCode(err) != booking.CodeNotOpenYet {
		t.Fatalf("%v", err)
	}
	f.now.Store(rt0.Add(25 * time.Hour).UnixNano())
	if _, _, err := f.svc.SubmitApplication(ctx, f.round.ID, p2.ID, f.slots[1].ID, "late"); booking.ErrorCode(err) != booking.CodeSlotClosed {
		t.Fatalf("%v", err)
	}
	if r, _, err := f.svc.SubmitApplication(ctx, f.round.ID, p1.ID, f.slots[0].ID, "k"); err != nil || r.ID != a.ID {
		t.Fatalf("%+v %v", r, err)
	}
	if _, _, err := f.svc.SubmitApplication(ctx, f.round.ID+1000, p2.ID, f.slots[1].ID, "x"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("%v", err)
	}
}

// TestRunRoundProcessorSweeps: applications another instance stored (no
// wake-up here) are decided by the periodic sweep, and the processor
// stops with its context.
func TestRunRoundProcessorSweeps(t *testing.T) {
	f := newRoundFixture(t, 1, 2)
	a1 := f.submitDirect(t, f.patient(t).ID, f.slots[0].ID, "x")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.svc.RunRoundProcessor(ctx, 20*time.Millisecond); close(done) }()
	if got := f.waitDecided(t, a1.ID); got.Status != booking.ApplicationAllocated {
		t.Fatalf("%+v", got)
	}
	// Later ones too, on the next tick.
	a2 := f.submitDirect(t, f.patient(t).ID, f.slots[0].ID, "y")
	a3 := f.submitDirect(t, f.patient(t).ID, f.slots[0].ID, "z")
	if got := f.waitDecided(t, a2.ID); got.Status != booking.ApplicationAllocated {
		t.Fatalf("%+v", got)
	}
	if got := f.waitDecided(t, a3.ID); got.Status != booking.ApplicationRejected || got.Reason != booking.CodeSlotFull {
		t.Fatalf("%+v", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("RunRoundProcessor did not stop")
	}
	// Stopped: new submissions stay PENDING (for another instance).
	p := f.patient(t)
	a4, _, err := f.svc.SubmitApplication(context.Background(), f.round.ID, p.ID, f.slots[0].ID, "w")
	if err != nil {
		t.Fatal(err)
	}
	// RunRoundProcessor has returned (done), after its drains: nothing is
	// left running here to decide it.
	if got := f.get(t, a4.ID); got.Status != booking.ApplicationPending {
		t.Fatalf("%+v", got)
	}
}

// TestConcurrentSubmissions: many goroutines submit at once; every
// application is decided, exactly the beds are allocated.
func TestConcurrentSubmissions(t *testing.T) {
	f := newRoundFixture(t, 1, 2, 2, 1)
	var patients []booking.Patient
	for range 60 {
		patients = append(patients, f.patient(t))
	}
	ids := make([]int64, len(patients))
	var wg sync.WaitGroup
	errs := make(chan error, len(patients))
	for i, p := range patients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, _, err := f.svc.SubmitApplication(context.Background(), f.round.ID, p.ID, f.slots[i%3].ID, "k")
			if err != nil {
				errs <- err
				return
			}
			ids[i] = a.ID
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	allocated := 0
	for _, id := range ids {
		if f.waitDecided(t, id).Status == booking.ApplicationAllocated {
			allocated++
		}
	}
	if allocated != 5 {
		t.Fatalf("%d allocated, want 5", allocated)
	}
}
