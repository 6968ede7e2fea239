package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// An enqueuer that fails takes the state change down with it: nothing is
// committed that lacks its notifications.
func TestEnqueuerFailureRollsBack(t *testing.T) {
	f := newFix(t)
	ps := f.patients(2)
	sl := f.slot(2)
	res, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[0], sl.ID, "a")}, testNow)
	must(t, err)
	a := res[0].Appointment

	boom := errors.New("outbox down")
	f.s.enqueue = func(context.Context, pgx.Tx, []booking.Notification) error { return boom }
	if _, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[1], sl.ID, "b")}, testNow); !errors.Is(err, boom) {
		t.Fatalf("book with a failing enqueuer: %v", err)
	}
	f.s.outboxStmt = func([]booking.Notification) (string, []any, error) { return "", nil, boom }
	if _, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[1], sl.ID, "b")}, testNow); !errors.Is(err, boom) {
		t.Fatalf("book with a failing outbox statement: %v", err)
	}
	// A statement that fails in the commit pipeline skips its COMMIT.
	f.s.outboxStmt = func([]booking.Notification) (string, []any, error) { return "SELECT 1/0", nil, nil }
	if _, err := f.s.Book(f.ctx, sl.ID, []booking.BookRequest{rq(ps[1], sl.ID, "b")}, testNow); err == nil {
		t.Fatalf("book with a failing outbox statement committed")
	}
	if _, err := f.s.Cancel(f.ctx, a.ID, 0, testNow); !errors.Is(err, boom) {
		t.Fatalf("cancel with a failing enqueuer: %v", err)
	}
	got, err := f.s.GetSlot(f.ctx, sl.ID)
	must(t, err)
	if got.BookedCount != 1 {
		t.Fatalf("booked_count %d after failed changes, want 1", got.BookedCount)
	}
	if _, err := f.s.FindByKey(f.ctx, ps[1].ID, "b"); booking.ErrorCode(err) != booking.CodeNotFound {
		t.Fatalf("the failed booking was committed: %v", err)
	}
	if g, _ := f.s.GetAppointment(f.ctx, a.ID); g.Status != booking.StatusBooked {
		t.Fatalf("the failed cancel was committed: %s", g.Status)
	}
	// A hold (nothing to announce) does not call the enqueuer at all.
	paid := f.slot(1, func(s *booking.Slot) { s.FeeCents = 100 })
	res, err = f.s.Book(f.ctx, paid.ID, []booking.BookRequest{rq(ps[1], paid.ID, "h")}, testNow)
	must(t, err)
	must(t, res[0].Err)
}

// Several expiry passes at once (several instances) release each place once.
func TestExpireHoldsConcurrently(t *testing.T) {
	f := newFix(t)
	const slots, perSlot = 6, 5
	ps := f.patients(perSlot)
	// The same patients hold all six slots of one day: the caps off.
	_, err := f.s.SetClinicPolicy(f.ctx, booking.Policy{})
	must(t, err)
	var deadline time.Time
	for range slots {
		sl := f.slot(perSlot, func(s *booking.Slot) { s.FeeCents = 100 })
		reqs := make([]booking.BookRequest, perSlot)
		for i := range reqs {
			reqs[i] = rq(ps[i], sl.ID, fmt.Sprint("k", sl.ID))
		}
		res, err := f.s.Book(f.ctx, sl.ID, reqs, testNow)
		must(t, err)
		for _, r := range res {
			must(t, r.Err)
			deadline = *r.Appointment.HoldExpiresAt
		}
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := f.s.ExpireHolds(f.ctx, deadline, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, a := range got {
					seen[a.ID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// A pass never waits for a lock (SKIP LOCKED), so a worker may stop
	// while another still holds rows it skipped; the periodic job comes
	// again, as this last pass does. Every hold must end exactly once.
	for {
		got, err := f.s.ExpireHolds(f.ctx, deadline, 7)
		must(t, err)
		if len(got) == 0 {
			break
		}
		for _, a := range got {
			seen[a.ID]++
		}
	}
	if len(seen) != slots*perSlot {
		t.Fatalf("expired %d holds, want %d", len(seen), slots*perSlot)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("hold %d expired %d times", id, n)
		}
	}
	rep, err := f.s.Reconcile(f.ctx, deadline, false)
	must(t, err)
	if !rep.Sound() || len(rep.StaleHolds) != 0 {
		t.Fatalf("after concurrent expiry: %+v", rep)
	}
}

// A canceled context or a closed pool is ErrUnavailable from every
// lifecycle method, never an internal error.
func TestLifecycleUnavailable(t *testing.T) {
	f := newFix(t)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, booking.ErrUnavailable) {
			t.Errorf("%s: want ErrUnavailable, got %v", what, err)
		}
	}
	run := func(ctx context.Context, label string) {
		_, err := f.s.Book(ctx, 1, []booking.BookRequest{{PatientID: 1, IdempotencyKey: "k", Fingerprint: "slot=1"}}, testNow)
		check(label+" book", err)
		_, err = f.s.Cancel(ctx, 1, 0, testNow)
		check(label+" cancel", err)
		_, err = f.s.ConfirmPayment(ctx, booking.Payment{TradeNo: "t", AppointmentID: 1, AmountCents: 1}, testNow)
		check(label+" payment", err)
		_, err = f.s.ExpireHolds(ctx, testNow, 100)
		check(label+" expire", err)
		_, err = f.s.Transition(ctx, 1, booking.StatusCompleted, testNow)
		check(label+" transition", err)
		_, err = f.s.Suspend(ctx, booking.Suspension{DoctorID: f.doc[0].ID, From: testNow, To: testNow.Add(time.Hour)}, testNow)
		check(label+" suspend", err)
		_, err = f.s.GetSuspension(ctx, 1)
		check(label+" get suspension", err)
		_, err = f.s.Reconcile(ctx, testNow, true)
		check(label+" reconcile", err)
	}
	run(canceled, "canceled")
	f.s.Close()
	run(context.Background(), "closed pool")
}
