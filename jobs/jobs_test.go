package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/pgtest"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/notify"
	"github.com/slotd/slotd/pii"
	"github.com/slotd/slotd/postgres"
	"github.com/slotd/slotd/schedule"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// t0 is the tests' clock: slots opened before it and start after it.
var t0 = time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC)

// backend opens stores of one kind; open returns a store on a fresh
// migrated database and reopen another store on that same database.
type backend struct {
	name string
	open func(t *testing.T) (s booking.Store, reopen func() booking.Store)
}

var backends = []backend{
	{"sqlite", func(t *testing.T) (booking.Store, func() booking.Store) {
		path := filepath.Join(t.TempDir(), "slotd.db")
		open := func() booking.Store {
			out := new(Outbox[*sql.Tx])
			s, err := sqlite.OpenWith(context.Background(), path, sqlite.Options{Enqueue: out.Enqueue})
			must(t, err)
			outboxes.Store(booking.Store(s), out)
			t.Cleanup(func() { s.Close() })
			return s
		}
		must(t, sqlite.Migrate(context.Background(), path))
		s := open()
		must(t, s.(riverMigrator).MigrateRiver(context.Background()))
		return s, open
	}},
	{"postgres", func(t *testing.T) (booking.Store, func() booking.Store) {
		dsn := pgtest.DSN(t)
		keys := pii.New() // every instance of one database has its keys
		must(t, postgres.MigrateKeys(context.Background(), dsn, keys))
		open := func() booking.Store {
			out := new(Outbox[pgx.Tx])
			s, err := postgres.Open(context.Background(), dsn, postgres.Options{Keys: keys,
				Enqueue: out.Enqueue, OutboxStatement: OutboxStatement})
			must(t, err)
			outboxes.Store(booking.Store(s), out)
			t.Cleanup(func() { s.Close() })
			return s
		}
		s := open()
		must(t, s.(riverMigrator).MigrateRiver(context.Background()))
		return s, open
	}},
}

// outboxes holds the Outbox each test store was opened with.
var outboxes sync.Map

// newFor is New on a test store with the outbox it was opened with.
func newFor(s booking.Store, cfg Config) (*Runner, error) {
	out, _ := outboxes.Load(s)
	switch s := s.(type) {
	case *sqlite.Store:
		return New(s, out.(*Outbox[*sql.Tx]), cfg)
	case *postgres.Store:
		return New(s, out.(*Outbox[pgx.Tx]), cfg)
	}
	return nil, fmt.Errorf("no outbox for %T", s)
}

// riverMigrator applies River's migrations (cmd/slotd does it on serve).
type riverMigrator interface {
	MigrateRiver(ctx context.Context) error
}

// eachBackend runs fn as a parallel subtest per store kind.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, b)
		})
	}
}

// recorder is a Notifier that keeps what it was asked to deliver; fail, when
// set, decides the answer of each attempt (n counts attempts from 1).
type recorder struct {
	mu       sync.Mutex
	attempts int
	sent     []notify.Message
	fail     func(n int, m notify.Message) error
}

func (r *recorder) Notify(_ context.Context, m notify.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts++
	if r.fail != nil {
		if err := r.fail(r.attempts, m); err != nil {
			return err
		}
	}
	r.sent = append(r.sent, m)
	return nil
}

func (r *recorder) messages() []notify.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.Message(nil), r.sent...)
}

func (r *recorder) tries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts
}

// fixture is a store with a department, a doctor and helpers.
type fixture struct {
	t      *testing.T
	s      booking.Store
	ctx    context.Context
	doctor booking.Doctor
	next   int
}

func newFixture(t *testing.T, s booking.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	d, err := s.CreateDepartment(ctx, booking.Department{Name: "Cardiology"})
	must(t, err)
	doc, err := s.CreateDoctor(ctx, booking.Doctor{Name: "Dr. Martin", DepartmentID: d.ID, TimeZone: "Europe/Paris"})
	must(t, err)
	return &fixture{t: t, s: s, ctx: ctx, doctor: doc}
}

// slot makes an open slot starting at a fresh hour a day after t0.
func (f *fixture) slot(capacity int, fee int64) booking.Slot {
	f.t.Helper()
	f.next++
	start := t0.Add(time.Duration(24+f.next) * time.Hour)
	s, err := f.s.CreateSlot(f.ctx, booking.Slot{
		DoctorID: f.doctor.ID, StartAt: start, EndAt: start.Add(30 * time.Minute), Capacity: capacity,
		OpensAt: t0.Add(-time.Hour), Status: booking.SlotOpen, FeeCents: fee, HoldSeconds: 900,
	})
	must(f.t, err)
	return s
}

// phones numbers the test patients: a phone is one patient's.
var phones atomic.Int64

func (f *fixture) patient() booking.Patient {
	f.t.Helper()
	p, err := f.s.CreatePatient(f.ctx, booking.Patient{Name: "Ada", Phone: fmt.Sprintf("+336%08d", phones.Add(1)), Email: "ada@example.org"})
	must(f.t, err)
	return p
}

// book books patients into a slot in one batch at `at` and returns the
// appointments.
func (f *fixture) book(slotID int64, at time.Time, ps ...booking.Patient) []booking.Appointment {
	f.t.Helper()
	reqs := make([]booking.BookRequest, len(ps))
	for i, p := range ps {
		reqs[i] = booking.BookRequest{PatientID: p.ID, IdempotencyKey: fmt.Sprintf("k-%d-%d", p.ID, slotID), Fingerprint: booking.Fingerprint(slotID)}
	}
	res, err := f.s.Book(f.ctx, slotID, reqs, at)
	must(f.t, err)
	as := make([]booking.Appointment, len(res))
	for i, r := range res {
		if r.Err != nil {
			f.t.Fatalf("book slot %d: %v", slotID, r.Err)
		}
		as[i] = r.Appointment
	}
	return as
}

// runner builds a Runner for s with quick polling, stopped at cleanup (before
// the store closes, since cleanups run last-in first-out).
// svcAt is the Service the jobs make their changes through, on clock now
// (time.Now when nil).
func svcAt(s booking.Store, now func() time.Time) *service.Service {
	return service.NewService(s, service.Options{Now: now})
}

// startRunner starts r and stops it when the test ends.
func startRunner(t *testing.T, r *Runner) {
	t.Helper()
	must(t, r.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
}

func runner(t *testing.T, s booking.Store, cfg Config, start bool) *Runner {
	t.Helper()
	cfg.fetchPollInterval = 100 * time.Millisecond
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r, err := newFor(s, cfg)
	must(t, err)
	if start {
		startRunner(t, r)
	}
	return r
}

// eventually polls cond until it holds or the deadline passes.
var eventually = testkit.Eventually

// drained waits until r has no unfinished notification job left.
func drained(t *testing.T, r *Runner) {
	t.Helper()
	eventually(t, "notification jobs to finish", 20*time.Second, func() bool {
		n, err := r.jobsLeft(context.Background(), NotifyArgs{}.Kind(), NotifyBatchArgs{}.Kind())
		must(t, err)
		return n == 0
	})
}

// finished counts r's finished jobs of kinds: once none is left unfinished
// (drained), no job remains to deliver a message again, and this says how
// many deliveries (or passes) there were.
func finished(t *testing.T, r *Runner, kinds ...string) int {
	t.Helper()
	n, err := r.jobsFinished(context.Background(), kinds...)
	must(t, err)
	return n
}

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestNotificationSurvivesCrash: the confirmation is written with the
// booking; a process that dies before delivering it leaves the job, and the
// next process delivers it exactly once.
func TestNotificationSurvivesCrash(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		p := f.patient()
		sl := f.slot(2, 0)

		// The first process installs the enqueuer but crashes before its
		// workers run: it is never started.
		dead := &recorder{}
		runner(t, s, Config{Service: svcAt(s, nil), Notifier: dead}, false)
		a := f.book(sl.ID, t0, p)[0]
		if a.Status != booking.StatusBooked {
			t.Fatalf("status %s, want BOOKED", a.Status)
		}

		rec := &recorder{}
		r := runner(t, s, Config{Service: svcAt(s, clock(t0)), Notifier: rec}, true)
		eventually(t, "the confirmation", 20*time.Second, func() bool { return len(rec.messages()) >= 1 })
		drained(t, r)
		// Finished, and one job: none is left to deliver it a second time.
		if n := finished(t, r, NotifyArgs{}.Kind()); n != 1 {
			t.Fatalf("%d notification jobs finished, want 1", n)
		}

		ms := rec.messages()
		if len(ms) != 1 || len(dead.messages()) != 0 {
			t.Fatalf("delivered %d messages (%d by the dead process), want exactly 1", len(ms), len(dead.messages()))
		}
		m := ms[0]
		want := notify.Message{
			Kind: notify.KindConfirmation, AppointmentID: a.ID, PatientID: p.ID, PatientName: p.Name,
			Phone: p.Phone, Email: p.Email, DoctorName: f.doctor.Name, StartAt: sl.StartAt,
			TimeZone: "Europe/Paris", QueueNumber: a.QueueNumber,
			// The first site, named by the migration (no address, no position).
			Place:          "slotd clinic",
			IdempotencyKey: fmt.Sprintf("appt-%d-confirmation", a.ID),
		}
		if !m.StartAt.Equal(want.StartAt) {
			t.Fatalf("startAt %v, want %v", m.StartAt, want.StartAt)
		}
		m.StartAt = want.StartAt
		if m != want {
			t.Fatalf("message\n got %+v\nwant %+v", m, want)
		}
	})
}

// TestBatchDelivers: a booking batch writes one job for all its
// confirmations; it survives a crash like any job, delivers every message
// itself (no job per message) and marks each sent; each patient gets
// exactly one message.
func TestBatchDelivers(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		ps := []booking.Patient{f.patient(), f.patient(), f.patient(), f.patient()}
		sl := f.slot(4, 0)
		dead := &recorder{}
		dr := runner(t, s, Config{Service: svcAt(s, nil), Notifier: dead}, false)
		as := f.book(sl.ID, t0, ps...) // one batch of four
		if n, err := dr.jobsLeft(context.Background(), NotifyBatchArgs{}.Kind()); err != nil || n != 1 {
			t.Fatalf("%d batch jobs (%v), want 1 for the four confirmations", n, err)
		}

		rec := &recorder{}
		r := runner(t, s, Config{Service: svcAt(s, clock(t0)), Notifier: rec}, true)
		eventually(t, "four confirmations", 20*time.Second, func() bool { return len(rec.messages()) >= 4 })
		drained(t, r)
		// Finished: one batch and no other job, none left to deliver again.
		if n, m := finished(t, r, NotifyBatchArgs{}.Kind()), finished(t, r, NotifyArgs{}.Kind()); n != 1 || m != 0 {
			t.Fatalf("%d batch and %d notification jobs finished, want 1 and 0", n, m)
		}
		got := map[int64]int{}
		for _, m := range rec.messages() {
			got[m.AppointmentID]++
		}
		for i, a := range as {
			if got[a.ID] != 1 {
				t.Fatalf("appointment %d confirmed %d times: %v", a.ID, got[a.ID], got)
			}
			ms, err := s.PatientMessages(f.ctx, ps[i].ID, booking.Page{Limit: 10})
			must(t, err)
			if len(ms) != 1 || ms[0].State != booking.MessageSent || ms[0].Kind != notify.KindConfirmation {
				t.Fatalf("patient %d's delivery records %+v, want one confirmation sent", ps[i].ID, ms)
			}
		}
		if len(rec.messages()) != 4 || len(dead.messages()) != 0 {
			t.Fatalf("%d messages (%d by the dead process), want 4", len(rec.messages()), len(dead.messages()))
		}
	})
}

// TestBatchRetrySendsOnlyTheFailed: one message of a batch fails once
// (a receiver down), another is refused for good: the batch is retried and
// the retry sends the failed one only; the refused one is marked failed and
// never tried again; the others went once.
func TestBatchRetrySendsOnlyTheFailed(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		ps := []booking.Patient{f.patient(), f.patient(), f.patient(), f.patient()}
		sl := f.slot(4, 0)
		var mu sync.Mutex
		tries := map[string]int{}
		downFor, refused := ps[1].ID, ps[2].ID
		rec := &recorder{fail: func(_ int, m notify.Message) error {
			mu.Lock()
			defer mu.Unlock()
			tries[m.IdempotencyKey]++
			switch {
			case m.PatientID == downFor && tries[m.IdempotencyKey] == 1:
				return errors.New("receiver down")
			case m.PatientID == refused:
				return &notify.Permanent{Err: notify.ErrNoAddress}
			}
			return nil
		}}
		r := runner(t, s, Config{Service: svcAt(s, clock(t0)), Notifier: rec}, false)
		as := f.book(sl.ID, t0, ps...)
		must(t, r.Start(context.Background()))
		t.Cleanup(func() { r.Stop(context.Background()) })
		// River retries the batch after a backoff of about a second.
		eventually(t, "the retried confirmation", 30*time.Second, func() bool { return len(rec.messages()) == 3 })
		drained(t, r)
		mu.Lock()
		defer mu.Unlock()
		for i, a := range as {
			key := fmt.Sprintf("appt-%d-%s", a.ID, notify.KindConfirmation)
			want, state := 1, booking.MessageSent
			switch ps[i].ID {
			case downFor:
				want = 2
			case refused:
				state = booking.MessageFailed
			}
			if tries[key] != want {
				t.Errorf("%s tried %d times, want %d: %v", key, tries[key], want, tries)
			}
			ms, err := s.PatientMessages(f.ctx, ps[i].ID, booking.Page{Limit: 10})
			must(t, err)
			if len(ms) != 1 || ms[0].State != state {
				t.Errorf("patient %d's records %+v, want one %s", ps[i].ID, ms, state)
			}
		}
		if n := finished(t, r, NotifyBatchArgs{}.Kind()); n != 1 {
			t.Fatalf("%d batch jobs finished, want 1", n)
		}
	})
}

// TestCancelledConfirmationDropped: a confirmation still waiting when its
// appointment is cancelled is dropped; the cancellation is sent.
func TestCancelledConfirmationDropped(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		p := f.patient()
		sl := f.slot(1, 0)
		rec := &recorder{}
		r := runner(t, s, Config{Service: svcAt(s, clock(t0)), Notifier: rec}, false)
		a := f.book(sl.ID, t0, p)[0]
		if _, err := s.Cancel(f.ctx, a.ID, p.ID, t0); err != nil {
			t.Fatal(err)
		}
		must(t, r.Start(context.Background()))
		t.Cleanup(func() { r.Stop(context.Background()) })
		eventually(t, "the cancellation", 20*time.Second, func() bool { return len(rec.messages()) >= 1 })
		drained(t, r)
		ms := rec.messages()
		if len(ms) != 1 || ms[0].Kind != notify.KindCancellation || ms[0].AppointmentID != a.ID {
			t.Fatalf("sent %+v, want only the cancellation of %d", ms, a.ID)
		}
	})
}

// TestDeliveryRetriesAndGivesUp: a temporary failure is retried; a
// permanent one is not.
func TestDeliveryRetriesAndGivesUp(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		p1, p2 := f.patient(), f.patient()
		sl := f.slot(2, 0)
		var a1 booking.Appointment
		rec := &recorder{fail: func(n int, m notify.Message) error {
			if m.AppointmentID == a1.ID {
				if n == 1 {
					return errors.New("receiver down")
				}
				return nil
			}
			return &notify.Permanent{Err: notify.ErrNoAddress}
		}}
		r := runner(t, s, Config{Service: svcAt(s, clock(t0)), Notifier: rec}, false)
		a1 = f.book(sl.ID, t0, p1)[0]
		must(t, r.Start(context.Background()))
		t.Cleanup(func() { r.Stop(context.Background()) })
		// The first delivery fails; River retries it after a backoff of
		// about a second.
		eventually(t, "the retried confirmation", 30*time.Second, func() bool { return len(rec.messages()) == 1 })
		drained(t, r)
		if n := rec.tries(); n < 2 {
			t.Fatalf("%d attempts, want a failed one and a retry", n)
		}
		before := rec.tries()
		f.book(sl.ID, t0, p2)
		eventually(t, "the refused attempt", 20*time.Second, func() bool { return rec.tries() == before+1 })
		drained(t, r)
		// Both jobs finished (the refused one cancelled): none is left to try again.
		if n := finished(t, r, NotifyArgs{}.Kind()); n != 2 {
			t.Fatalf("%d notification jobs finished, want 2", n)
		}
		if n := rec.tries(); n != before+1 {
			t.Fatalf("a permanent failure was tried %d times, want once", n-before)
		}
	})
}

// TestExpiryJob: the periodic job expires the holds past their deadline,
// releases their places and announces each expiry once; a running hold stays.
func TestExpiryJob(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sl := f.slot(4, 2500)
		old := f.book(sl.ID, t0, f.patient(), f.patient(), f.patient())
		young := f.book(sl.ID, t0.Add(55*time.Minute), f.patient())[0]
		later := t0.Add(time.Hour) // past the first three holds' 15 minutes
		svc := service.NewService(s, service.Options{Now: clock(later)})
		rec := &recorder{}
		r := runner(t, s, Config{Service: svc, Notifier: rec, ExpiryInterval: 200 * time.Millisecond}, true)

		eventually(t, "the expiry notifications", 20*time.Second, func() bool { return len(rec.messages()) >= 3 })
		// Several more passes, and their notices delivered: nothing more to do.
		passes := finished(t, r, ExpireArgs{}.Kind())
		eventually(t, "three more expiry passes", 20*time.Second, func() bool {
			return finished(t, r, ExpireArgs{}.Kind()) >= passes+3
		})
		drained(t, r)
		got, err := s.GetSlot(f.ctx, sl.ID)
		must(t, err)
		if got.BookedCount != 1 {
			t.Fatalf("booked %d, want 1 (the running hold)", got.BookedCount)
		}
		for _, a := range old {
			a, err := s.GetAppointment(f.ctx, a.ID)
			must(t, err)
			if a.Status != booking.StatusExpired {
				t.Fatalf("appointment %d is %s, want EXPIRED", a.ID, a.Status)
			}
		}
		if a, _ := s.GetAppointment(f.ctx, young.ID); a.Status != booking.StatusHeld {
			t.Fatalf("the running hold is %s, want HELD", a.Status)
		}
		seen := map[int64]int{}
		for _, m := range rec.messages() {
			if m.Kind != notify.KindExpiry {
				t.Fatalf("unexpected %s message", m.Kind)
			}
			seen[m.AppointmentID]++
		}
		for _, a := range old {
			if seen[a.ID] != 1 {
				t.Fatalf("appointment %d announced %d times, want once", a.ID, seen[a.ID])
			}
		}
	})
}

// TestExpiryTwoInstances: two instances on one PostgreSQL database expiring
// at once release each place exactly once, in batches of ExpireBatch.
func TestExpiryTwoInstances(t *testing.T) {
	t.Parallel()
	b := backends[1]
	s1, reopen := b.open(t)
	s2 := reopen()
	f := newFixture(t, s1)
	const slots, capacity = 25, 10 // 250 holds: three batches
	var holds []booking.Appointment
	for i := 0; i < slots; i++ {
		sl := f.slot(capacity, 1000)
		ps := make([]booking.Patient, capacity)
		for j := range ps {
			ps[j] = f.patient()
		}
		holds = append(holds, f.book(sl.ID, t0, ps...)...)
	}
	later := t0.Add(time.Hour)
	rec := &recorder{}
	r1 := runner(t, s1, Config{Service: svcAt(s1, clock(later)), Notifier: rec, ExpiryInterval: time.Hour}, true)
	r2 := runner(t, s2, Config{Service: svcAt(s2, clock(later)), Notifier: rec, ExpiryInterval: time.Hour}, true)

	var wg sync.WaitGroup
	start := make(chan struct{})
	var mu sync.Mutex
	total := 0
	for _, r := range []*Runner{r1, r2, r1, r2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			n, err := r.ExpireHolds(context.Background())
			if err != nil {
				t.Errorf("expire: %v", err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	// The leader's periodic pass at start may have taken some holds too;
	// together every hold is expired once.
	if total > len(holds) {
		t.Fatalf("expired %d holds, there are only %d", total, len(holds))
	}
	eventually(t, "every expiry notification", 60*time.Second, func() bool { return len(rec.messages()) >= len(holds) })
	drained(t, r1) // the instances share the queue: no job is left to deliver again
	seen := map[int64]int{}
	for _, m := range rec.messages() {
		seen[m.AppointmentID]++
	}
	for _, a := range holds {
		if seen[a.ID] != 1 {
			t.Fatalf("hold %d expired/announced %d times, want once", a.ID, seen[a.ID])
		}
		got, err := s1.GetAppointment(f.ctx, a.ID)
		must(t, err)
		if got.Status != booking.StatusExpired {
			t.Fatalf("hold %d is %s", a.ID, got.Status)
		}
	}
	if len(rec.messages()) != len(holds) {
		t.Fatalf("%d messages for %d holds", len(rec.messages()), len(holds))
	}
	for i := 0; i < slots; i++ {
		sl, err := s1.GetSlot(f.ctx, holds[i*capacity].SlotID)
		must(t, err)
		if sl.BookedCount != 0 {
			t.Fatalf("slot %d booked %d after every hold expired, want 0", sl.ID, sl.BookedCount)
		}
	}
}

// TestRollingGeneration: when the clock moves a day, the generation job
// extends a schedule's horizon by that day.
func TestRollingGeneration(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		f := newFixture(t, s)
		sc, err := s.CreateSchedule(f.ctx, booking.Schedule{
			DoctorID: f.doctor.ID, Weekdays: []time.Weekday{0, 1, 2, 3, 4, 5, 6},
			StartTime: "09:00", EndTime: "10:00", SlotMinutes: 30, Capacity: 2, HorizonDays: 14,
		})
		must(t, err)
		loc, err := time.LoadLocation("Europe/Paris")
		must(t, err)
		from, to := schedule.Window(sc, loc, t0)
		if _, _, err := schedule.Apply(f.ctx, s, schedule.Generation{Schedule: sc, Location: loc, From: from, To: to}); err != nil {
			t.Fatal(err)
		}
		day := func(d schedule.Date) []booking.Slot {
			start := time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
			ss, err := s.ListSlots(f.ctx, f.doctor.ID, start, start.AddDate(0, 0, 1))
			must(t, err)
			return ss
		}
		if n := len(day(to.AddDays(1))); n != 0 {
			t.Fatalf("%d slots beyond the horizon before the clock moved", n)
		}

		// A day later the pass at start extends the horizon by a day.
		rec := &recorder{}
		var now atomic.Int64 // the workers read the clock while the test moves it
		now.Store(t0.Add(24 * time.Hour).UnixNano())
		r := runner(t, s, Config{Service: svcAt(s, func() time.Time { return time.Unix(0, now.Load()).UTC() }), Notifier: rec}, true)
		eventually(t, "the next day's slots", 20*time.Second, func() bool { return len(day(to.AddDays(1))) == 2 })
		if n := len(day(to.AddDays(2))); n != 0 {
			t.Fatalf("%d slots two days beyond the old horizon", n)
		}

		// The incremental pass does the same for the day after.
		now.Store(t0.Add(48 * time.Hour).UnixNano())
		created, err := r.GenerateSlots(f.ctx, false)
		must(t, err)
		if created != 2 || len(day(to.AddDays(2))) != 2 {
			t.Fatalf("created %d, want the 2 slots of the new day", created)
		}
		if created, err := r.GenerateSlots(f.ctx, true); err != nil || created != 0 {
			t.Fatalf("a repeated full pass created %d (%v), want 0", created, err)
		}
	})
}

// TestMigrateTwice: River's migrations are idempotent.
func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, b backend) {
		s, _ := b.open(t)
		must(t, s.(riverMigrator).MigrateRiver(context.Background()))
	})
}

func TestNewRefusesBadConfig(t *testing.T) {
	s, _ := backends[0].open(t)
	if _, err := New(s.(*sqlite.Store), nil, Config{Service: svcAt(s, nil), Notifier: &recorder{}}); err == nil {
		t.Fatal("New without an outbox succeeded")
	}
	if _, err := newFor(s, Config{Service: svcAt(s, nil)}); err == nil {
		t.Fatal("New without a notifier succeeded")
	}
	if _, err := newFor(s, Config{Notifier: &recorder{}}); err == nil {
		t.Fatal("New without a Service succeeded")
	}
}

// must fails the test at once on an error.
var must = testkit.NoError
