package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
)

// testServiceEngines books through service.Service with both engines: the
// group-commit lanes must give exactly the answers one-by-one booking gives.
func testServiceEngines(t *testing.T, h Harness) {
	for _, engine := range []string{service.EngineDirect, service.EngineBatched} {
		t.Run(engine, func(t *testing.T) {
			s := h.New(t)
			f := newFixture(t, s)
			// The timeout is generous: this test is about answers, and -race on two
			// busy cores makes 200 one-by-one decisions slow.
			svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Engine: engine, Timeout: time.Minute})
			ctx := context.Background()

			sl := f.slot(10)
			ps := f.patients(200)
			var o outcomes
			release(200, func(i int) { o.add(svc.Book(ctx, ps[i].ID, sl.ID, "k")) })
			if o.n["ok"] != 10 || o.n[string(booking.CodeSlotFull)] != 190 {
				t.Fatalf("want 10 ok and 190 slot-full, got %v", o.n)
			}
			wantNumbers(t, o.as, 10)

			// Retries replay, refusals keep their codes.
			a := o.as[0]
			r := svc.Book(ctx, a.PatientID, sl.ID, "k")
			if r.Err != nil || !r.Replayed || r.Appointment.ID != a.ID {
				t.Fatalf("retry = %+v", r)
			}
			other := f.slot(1)
			wantCode(t, svc.Book(ctx, a.PatientID, other.ID, "k").Err, booking.CodeKeyReused)
			// A second attempt of a patient who holds a place in the full
			// slot is already-booked, the more specific truth, whether the
			// gates or the database answer it.
			wantCode(t, svc.Book(ctx, a.PatientID, sl.ID, "k2").Err, booking.CodeAlreadyBooked)
			roomy := f.slot(3)
			wantOK(t, svc.Book(ctx, a.PatientID, roomy.ID, "r1"))
			wantCode(t, svc.Book(ctx, a.PatientID, roomy.ID, "r2").Err, booking.CodeAlreadyBooked)
			wantCode(t, svc.Book(ctx, a.PatientID, 999999, "k3").Err, booking.CodeNotFound)

			// Many slots at once, several patients each, all lanes busy.
			var o2 outcomes
			slots := []booking.Slot{f.slot(3), f.slot(1), f.slot(7), f.slot(2)}
			release(160, func(i int) {
				sl := slots[i%len(slots)]
				o2.add(svc.Book(ctx, ps[i].ID, sl.ID, fmt.Sprint("m", i)))
			})
			if o2.n["ok"] != 13 || o2.n[string(booking.CodeSlotFull)] != 147 {
				t.Fatalf("want 13 ok and 147 slot-full over 4 slots, got %v", o2.n)
			}
			checkInvariants(t, h, s)
		})
	}
}

// gateRecorder is a booking.Observer that remembers which outcomes the
// gates gave.
type gateRecorder struct {
	mu          sync.Mutex
	lastOutcome string
	lastGated   bool
}

func (g *gateRecorder) Booked(outcome string, gated bool, _ time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lastOutcome, g.lastGated = outcome, gated
}

func (g *gateRecorder) Batch(int, time.Duration) {}

func (g *gateRecorder) last() (outcome string, gated bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastOutcome, g.lastGated
}

// testServiceGates checks the in-memory gates: they refuse without a
// decision what the database would refuse, never a retry of a booking that
// succeeded, and forget a full mark when a place is released.
func testServiceGates(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	tick := func(d time.Duration) { clock.Add(int64(d)) }
	rec := &gateRecorder{}
	opts := service.Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }, Observer: rec,
		Gates: service.GateOptions{FullTTL: time.Second, SlotInfoTTL: time.Minute}}
	svc := service.NewService(s, opts)
	other := service.NewService(s, opts) // a second instance on the same database
	ctx := context.Background()
	book := func(svc *service.Service, p booking.Patient, slotID int64, key string) (booking.BookResult, bool) {
		t.Helper()
		r := svc.Book(ctx, p.ID, slotID, key)
		_, gated := rec.last()
		return r, gated
	}

	later := f.slot(2, opensAt(now.Add(time.Hour)))
	r, gated := book(svc, f.patient(), later.ID, "a")
	wantCode(t, r.Err, booking.CodeNotOpenYet)
	if !gated {
		t.Fatal("a window not open yet must be refused by the gate")
	}

	// A booking that leaves a place teaches the gates nothing.
	two := f.slot(2)
	r, gated = book(svc, f.patient(), two.ID, "two-1")
	wantOK(t, r)
	r, gated = book(svc, f.patient(), two.ID, "two-2")
	wantOK(t, r)
	if gated {
		t.Fatal("a booking after one that left a place was gated")
	}

	sl := f.slot(1)
	p1, p2, p3 := f.patient(), f.patient(), f.patient()
	r, gated = book(svc, p1, sl.ID, "k1")
	a := wantOK(t, r)
	if gated {
		t.Fatal("a booking was gated")
	}
	// It took the last place: the decision said so, and the next request
	// is refused without asking the database.
	r, gated = book(svc, p2, sl.ID, "k2")
	wantCode(t, r.Err, booking.CodeSlotFull)
	if !gated {
		t.Fatal("the slot whose last place was just taken must be refused by the gate")
	}
	r, gated = book(svc, p3, sl.ID, "k3")
	wantCode(t, r.Err, booking.CodeSlotFull)
	if !gated {
		t.Fatal("a slot known full must be refused by the gate")
	}
	// The patient who got the place retries: the answer is the original.
	r, _ = book(svc, p1, sl.ID, "k1")
	if r.Err != nil || !r.Replayed || r.Appointment.ID != a.ID {
		t.Fatalf("a retry of a booking that succeeded, at a full slot: %+v", r)
	}
	// Under a new key the holder is told already-booked, even by the gate
	// of a slot known full: the more specific truth comes first.
	r, gated = book(svc, p1, sl.ID, "k1-new")
	wantCode(t, r.Err, booking.CodeAlreadyBooked)
	if !gated {
		t.Fatal("the holder's new attempt at a slot known full must be answered by the gate")
	}
	// Another instance cancels: this one still believes the slot full for
	// at most FullTTL, then lets requests through again.
	_, err := other.Cancel(ctx, a.ID, p1.ID)
	must(t, err)
	r, gated = book(svc, p3, sl.ID, "k3")
	wantCode(t, r.Err, booking.CodeSlotFull)
	if !gated {
		t.Fatal("within FullTTL the mark still holds")
	}
	tick(1100 * time.Millisecond)
	r, _ = book(svc, p3, sl.ID, "k3")
	b := wantOK(t, r)
	// This instance's own cancel clears the mark at once.
	r, _ = book(svc, p2, sl.ID, "k2")
	wantCode(t, r.Err, booking.CodeSlotFull)
	_, err = svc.Cancel(ctx, b.ID, p3.ID)
	must(t, err)
	r, gated = book(svc, p2, sl.ID, "k2")
	wantOK(t, r)
	if gated {
		t.Fatal("gated after this instance released the place")
	}

	// A slot that has started is refused by the gate.
	tick(sl.StartAt.Sub(time.Unix(0, clock.Load())) + time.Second)
	r, gated = book(svc, f.patient(), sl.ID, "late")
	wantCode(t, r.Err, booking.CodeSlotClosed)
	if !gated {
		t.Fatal("a started slot must be refused by the gate")
	}
	checkInvariants(t, h, s)
}

// firstBookWaits is the store with its first Book held until release is
// closed; entered is closed when that Book has begun.
type firstBookWaits struct {
	booking.Store
	once             sync.Once
	entered, release chan struct{}
}

func (s *firstBookWaits) Book(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	s.once.Do(func() {
		close(s.entered)
		<-s.release
	})
	return s.Store.Book(ctx, slotID, reqs, now)
}

// gateCounter counts the decisions and the answers the gates gave.
type gateCounter struct{ batches, gated atomic.Int64 }

func (c *gateCounter) Booked(_ string, gated bool, _ time.Duration) {
	if gated {
		c.gated.Add(1)
	}
}
func (c *gateCounter) Batch(int, time.Duration) { c.batches.Add(1) }

// testServiceGatesAnswerTheQueue checks that the requests queued in a
// slot's lane behind the batch that takes its last place are answered by
// the gates, with no transaction of their own: in an opening, each such
// batch cost a wait for the slot's row only to refuse.
func testServiceGatesAnswerTheQueue(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	held := &firstBookWaits{Store: s, entered: make(chan struct{}), release: make(chan struct{})}
	release := sync.OnceFunc(func() { close(held.release) })
	t.Cleanup(release) // a failure below must not leave the first booking waiting
	count := &gateCounter{}
	svc := service.NewService(held, service.Options{Now: func() time.Time { return now }, Observer: count,
		Lanes: service.LaneOptions{Depth: 1}, Timeout: time.Minute})
	sl := f.slot(1)
	first := f.patient()
	others := make([]booking.Patient, 12)
	for i := range others {
		others[i] = f.patient()
	}
	var won booking.BookResult
	var wg sync.WaitGroup
	wg.Go(func() { won = svc.Book(f.ctx, first.ID, sl.ID, "first") })
	<-held.entered
	results := make([]booking.BookResult, len(others))
	for i, p := range others {
		wg.Go(func() { results[i] = svc.Book(f.ctx, p.ID, sl.ID, "late") })
	}
	// The winner clicks again meanwhile, with a new key.
	var again booking.BookResult
	wg.Go(func() { again = svc.Book(f.ctx, first.ID, sl.ID, "first-again") })
	queued := len(others) + 1
	for deadline := time.Now().Add(10 * time.Second); svc.QueueDepth() < queued; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests queued behind the first batch", svc.QueueDepth(), queued)
		}
	}
	release()
	wg.Wait()
	wantOK(t, won)
	for _, r := range results {
		wantCode(t, r.Err, booking.CodeSlotFull)
	}
	// A holder is told already-booked, as the database would have.
	wantCode(t, again.Err, booking.CodeAlreadyBooked)
	if n := count.batches.Load(); n != 1 {
		t.Fatalf("%d decisions; want 1: the queue behind the last place is the gates' to refuse", n)
	}
	if n := count.gated.Load(); n != int64(queued) {
		t.Fatalf("%d of %d refusals counted as the gates'", n, queued)
	}
	checkInvariants(t, h, s)
}

func testFindByKey(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	sl := f.slot(2)
	p, q := f.patient(), f.patient()
	a := wantOK(t, f.book(sl.ID, req(p, sl.ID, "find-me")))
	got, err := s.FindByKey(f.ctx, p.ID, "find-me")
	must(t, err)
	if got.ID != a.ID || got.Fingerprint != booking.Fingerprint(sl.ID) || got.IdempotencyKey != "find-me" {
		t.Fatalf("FindByKey = %+v", got)
	}
	_, err = s.FindByKey(f.ctx, q.ID, "find-me")
	wantCode(t, err, booking.CodeNotFound)
	_, err = s.FindByKey(f.ctx, p.ID, "other")
	wantCode(t, err, booking.CodeNotFound)

	// Many at once: only exact (patient, key) pairs match.
	b := wantOK(t, f.book(sl.ID, req(q, sl.ID, "mine")))
	found, err := s.FindByKeys(f.ctx, []booking.BookRequest{
		{PatientID: p.ID, IdempotencyKey: "find-me"}, {PatientID: q.ID, IdempotencyKey: "mine"},
		{PatientID: p.ID, IdempotencyKey: "mine"}, {PatientID: q.ID, IdempotencyKey: "find-me"},
		{PatientID: 999999, IdempotencyKey: "find-me"},
	})
	must(t, err)
	ids := map[int64]bool{}
	for _, x := range found {
		ids[x.ID] = true
	}
	if len(found) != 2 || !ids[a.ID] || !ids[b.ID] {
		t.Fatalf("FindByKeys = %+v, want appointments %d and %d only", found, a.ID, b.ID)
	}
	none, err := s.FindByKeys(f.ctx, []booking.BookRequest{{PatientID: q.ID, IdempotencyKey: "nope"}})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("FindByKeys of an unknown key = %+v", none)
	}

	// A request names its slot: the patient's active appointment there is
	// found under any key, and only while it is active.
	other := f.slot(2)
	holding, err := s.FindByKeys(f.ctx, []booking.BookRequest{
		{PatientID: p.ID, IdempotencyKey: "nope", SlotID: sl.ID}, {PatientID: q.ID, IdempotencyKey: "nope", SlotID: other.ID},
	})
	must(t, err)
	if len(holding) != 1 || holding[0].ID != a.ID {
		t.Fatalf("FindByKeys of a holder's slot = %+v, want appointment %d", holding, a.ID)
	}
	_, err = s.Cancel(f.ctx, a.ID, p.ID, now)
	must(t, err)
	holding, err = s.FindByKeys(f.ctx, []booking.BookRequest{{PatientID: p.ID, IdempotencyKey: "nope", SlotID: sl.ID}})
	must(t, err)
	if len(holding) != 0 {
		t.Fatalf("FindByKeys found a cancelled appointment by its slot: %+v", holding)
	}
}

// testServiceHungDatabase books while the database hangs for the slot: a
// booking's whole wait (lane queue, decision, key confirmation) stays
// within the service's timeout, also for a request queued behind a batch
// that is itself waiting, and is answered unavailable; once the database
// answers again, a retry with the same key finds the outcome.
func testServiceHungDatabase(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	const timeout = time.Second
	// The bound the answer must keep: the timeout and a margin for
	// scheduling on a busy machine, well under twice the timeout (which
	// the lanes used to allow a queued request).
	const bound = timeout + timeout/2
	// The store as the Service sees it says when a booking batch reaches
	// the database, which orders the two requests below.
	signal := &bookSignal{Store: s, reached: make(chan struct{})}
	svc := service.NewService(signal, service.Options{Now: func() time.Time { return now }, Timeout: timeout})
	ctx := context.Background()
	sl := f.slot(10)
	p1, p2 := f.patient(), f.patient()
	// The gates know the slot before the database hangs: the wait under
	// test is the booking's, not the gates' first read.
	wantOK(t, svc.Book(ctx, f.patient().ID, sl.ID, "warm"))

	release := h.Inspect(t, s).BlockSlot(t, sl.ID)
	signal.armed.Store(true)
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	type answer struct {
		r    booking.BookResult
		took time.Duration
	}
	first, second := make(chan answer, 1), make(chan answer, 1)
	go func() {
		start := time.Now()
		r := svc.Book(ctx, p1.ID, sl.ID, "k1")
		first <- answer{r, time.Since(start)}
	}()
	// The first request's batch reaches the database, so that the second
	// queues behind it in the slot's lane.
	select {
	case <-signal.reached:
	case a := <-first:
		t.Fatalf("the first request was answered before its batch reached the database: %+v", a.r)
	}
	go func() {
		start := time.Now()
		r := svc.Book(ctx, p2.ID, sl.ID, "k2")
		second <- answer{r, time.Since(start)}
	}()
	for i, ch := range []chan answer{first, second} {
		a := <-ch
		wantCode(t, a.r.Err, booking.CodeUnavailable)
		if a.took > bound {
			t.Fatalf("request %d answered after %v with the database hung; the bound is %v (timeout %v)", i+1, a.took, bound, timeout)
		}
	}

	release()
	released = true
	for _, p := range []struct {
		patient booking.Patient
		key     string
	}{{p1, "k1"}, {p2, "k2"}} {
		var r booking.BookResult
		// The lane may still be deciding what the database let through.
		testkit.Poll(5*time.Second, func() bool {
			r = svc.Book(ctx, p.patient.ID, sl.ID, p.key)
			return booking.ErrorCode(r.Err) != booking.CodeUnavailable && booking.ErrorCode(r.Err) != booking.CodeKeyInUse
		})
		// Made now or by the request that was answered unavailable: either
		// way the one appointment of this key.
		a := r.Appointment
		if r.Err != nil || a.PatientID != p.patient.ID || a.SlotID != sl.ID {
			t.Fatalf("retry with key %s: %+v", p.key, r)
		}
		again := svc.Book(ctx, p.patient.ID, sl.ID, p.key)
		if again.Err != nil || !again.Replayed || again.Appointment.ID != a.ID {
			t.Fatalf("a second retry with key %s must replay appointment %d: %+v", p.key, a.ID, again)
		}
	}
	checkInvariants(t, h, s)
}

// bookSignal is a booking.Store that closes reached when a Book call
// reaches it once armed is set.
type bookSignal struct {
	booking.Store
	armed   atomic.Bool
	once    sync.Once
	reached chan struct{}
}

func (b *bookSignal) Book(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	if b.armed.Load() {
		b.once.Do(func() { close(b.reached) })
	}
	return b.Store.Book(ctx, slotID, reqs, now)
}

// testServiceChanges makes the changes other than booking through the
// Service: each is what the store does, and the Service keeps its gates
// and watchers informed without the caller's help.
func testServiceChanges(t *testing.T, h Harness) {
	s := h.New(t)
	f := newFixture(t, s)
	rec := &gateRecorder{}
	svc := service.NewService(s, service.Options{Now: func() time.Time { return now }, Observer: rec, Gates: service.GateOptions{FullTTL: time.Hour, SlotInfoTTL: time.Hour}})
	var mu sync.Mutex
	changed := map[int64]int{} // doctor → changes told
	svc.Watch(func(c service.Change) { mu.Lock(); changed[c.DoctorID]++; mu.Unlock() })
	told := func(doctorID int64) int { mu.Lock(); defer mu.Unlock(); return changed[doctorID] }
	ctx := context.Background()

	// A schedule comes with its slots; generating again adds nothing.
	sc := booking.Schedule{DoctorID: f.doctor.ID, Weekdays: []time.Weekday{time.Monday, time.Thursday}, StartTime: "08:00", EndTime: "10:00",
		SlotMinutes: 30, Capacity: 2, HorizonDays: 14}
	created, n, err := svc.CreateSchedule(ctx, sc)
	must(t, err)
	if created.ID == 0 || created.HoldMinutes != booking.DefaultHoldMinutes || n < 8 {
		t.Fatalf("CreateSchedule = %+v, %d slots", created, n)
	}
	if told(f.doctor.ID) == 0 {
		t.Fatal("a new schedule's slots were not told to the watchers")
	}
	first, last := service.WindowDays(created, time.UTC, now)
	again, existing, err := svc.GenerateSlots(ctx, f.doctor.ID, first, last.AddDate(0, 0, 1))
	must(t, err)
	if again != 0 || existing < n {
		t.Fatalf("GenerateSlots after CreateSchedule: %d created, %d existing; want 0 and at least %d", again, existing, n)
	}
	ext, err := svc.ExtendSchedules(ctx, true)
	must(t, err)
	if ext != 0 {
		t.Fatalf("ExtendSchedules right after a generation created %d", ext)
	}
	_, _, err = svc.CreateSchedule(ctx, booking.Schedule{DoctorID: f.doctor.ID, Weekdays: sc.Weekdays, StartTime: "08:00", EndTime: "10:00",
		SlotMinutes: 30, Capacity: 2, HoldMinutes: 99999999})
	wantCode(t, err, booking.CodeInvalidRequest)
	_, _, err = svc.CreateSchedule(ctx, booking.Schedule{DoctorID: 999999, Weekdays: sc.Weekdays, StartTime: "08:00", EndTime: "10:00",
		SlotMinutes: 30, Capacity: 2})
	wantCode(t, err, booking.CodeNotFound)
	ss, err := s.ListSchedules(ctx, 0)
	must(t, err)
	if len(ss) != 1 {
		t.Fatalf("%d schedules after one valid and two refused", len(ss))
	}

	// A slot known full takes bookings again once the Service raises its
	// capacity: the gates forgot their mark.
	sl := f.slot(1)
	p1, p2 := f.patient(), f.patient()
	wantOK(t, svc.Book(ctx, p1.ID, sl.ID, "a"))
	wantCode(t, svc.Book(ctx, p2.ID, sl.ID, "b").Err, booking.CodeSlotFull)
	wantCode(t, svc.Book(ctx, p2.ID, sl.ID, "b").Err, booking.CodeSlotFull)
	if _, gated := rec.last(); !gated {
		t.Fatal("the slot is not known full")
	}
	two := 2
	_, err = svc.UpdateSlot(ctx, sl.ID, booking.SlotUpdate{Capacity: &two})
	must(t, err)
	wantOK(t, svc.Book(ctx, p2.ID, sl.ID, "b"))

	// A staff transition and a suspension through the Service.
	held := f.slot(1, withFee(500))
	a := wantOK(t, svc.Book(ctx, p1.ID, held.ID, "h"))
	res, err := svc.ConfirmPayment(ctx, booking.Payment{TradeNo: "T-1", AppointmentID: a.ID, AmountCents: 500})
	must(t, err)
	if res.Appointment.Status != booking.StatusBooked || res.Duplicate {
		t.Fatalf("ConfirmPayment = %+v", res)
	}
	_, err = svc.Transition(ctx, a.ID, booking.StatusCompleted)
	wantCode(t, err, booking.CodeNotStarted)
	// Once it has started (the Service's clock at its start):
	afterStart := service.NewService(s, service.Options{Now: func() time.Time { return a.StartAt }})
	done, err := afterStart.Transition(ctx, a.ID, booking.StatusCompleted)
	must(t, err)
	if done.Status != booking.StatusCompleted {
		t.Fatalf("Transition = %+v", done)
	}
	later := f.slot(3)
	wantOK(t, svc.Book(ctx, p1.ID, later.ID, "l"))
	sus, err := svc.Suspend(ctx, booking.Suspension{DoctorID: f.doctor.ID, From: later.StartAt, To: later.EndAt, Reason: "ill"})
	must(t, err)
	if sus.SlotsClosed != 1 || sus.Cancelled != 1 {
		t.Fatalf("Suspend = %+v", sus)
	}
	// The gates knew the slot open; the suspension made them reload it.
	wantCode(t, svc.Book(ctx, p2.ID, later.ID, "s").Err, booking.CodeSlotClosed)
	if _, gated := rec.last(); !gated {
		t.Fatal("a slot the Service closed must be refused by its gates")
	}
	rep, err := svc.Reconcile(ctx, false)
	must(t, err)
	if !rep.Sound() {
		t.Fatalf("reconciliation after the Service's changes: %+v", rep)
	}
	checkInvariants(t, h, s)
}
