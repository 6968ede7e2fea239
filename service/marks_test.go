package service_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/internal/testkit"
	"github.com/slotd/slotd/service"
	"github.com/slotd/slotd/sqlite"
)

// countedMarks counts the reads of the marks and fails them on demand.
type countedMarks struct {
	*sqlite.Store
	reads atomic.Int64
	fail  atomic.Bool
	// hung, when set, holds every read until it is closed, then fails it
	// (a frozen database, answered by the timeout).
	hung chan struct{}
}

func (c *countedMarks) MarksSince(ctx context.Context, since time.Time, closed bool) ([]booking.Mark, error) {
	c.reads.Add(1)
	if c.hung != nil {
		<-c.hung
		return nil, fmt.Errorf("%w: the database does not answer", booking.ErrUnavailable)
	}
	if c.fail.Load() {
		return nil, fmt.Errorf("%w: the database is down", booking.ErrUnavailable)
	}
	return c.Store.MarksSince(ctx, since, closed)
}

func openMarks(t testing.TB) *countedMarks {
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
	return &countedMarks{Store: st}
}

// TestAdmitReadsOncePerInterval: within MarkRefresh the copy answers
// without a read, however many requests at once; a sign-out on this
// instance is refused at once all the same, by a read of its own mark;
// and a copy older than the bound that cannot be read again refuses
// (unavailable) rather than admit on stale marks.
func TestAdmitReadsOncePerInterval(t *testing.T) {
	ctx := context.Background()
	st := openMarks(t)
	svc := service.NewService(st, service.Options{MarkRefresh: time.Hour})
	issued := time.Now()
	const n = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- svc.Admit(ctx, booking.RolePatient, fmt.Sprint(i+1), issued)
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := st.reads.Load(); got != 1 {
		t.Fatalf("%d reads of the marks for %d requests at once, want 1", got, n)
	}
	if err := svc.SignOut(ctx, booking.RolePatient, "1"); err != nil {
		t.Fatal(err)
	}
	if code := booking.ErrorCode(svc.Admit(ctx, booking.RolePatient, "1", issued)); code != booking.CodeUnauthorized {
		t.Fatalf("signed out on this instance: %q, want unauthorized at once", code)
	}
	// It read the mark it moved, not every mark moved lately (a burst of n
	// sign-outs would read n² rows).
	if got := st.reads.Load(); got != 1 {
		t.Fatalf("%d reads of the recent marks after a sign-out, want none beyond the first", got)
	}

	// Another instance whose copy is always stale, and a database that
	// does not answer: refused, not admitted on what it held.
	other := service.NewService(st, service.Options{MarkRefresh: time.Nanosecond})
	if err := other.Admit(ctx, booking.RolePatient, "2", issued); err != nil {
		t.Fatal(err)
	}
	st.fail.Store(true)
	if err := other.Admit(ctx, booking.RolePatient, "2", issued); !errors.Is(err, booking.ErrUnavailable) {
		t.Fatalf("stale copy, database down: %v, want unavailable", err)
	}
	st.fail.Store(false)
	if err := other.Admit(ctx, booking.RolePatient, "2", issued); err != nil {
		t.Fatalf("database back: %v", err)
	}
}

// TestAdmitSharesAFailedRead: with the database frozen, the requests that
// queued behind a read of the marks share its failure instead of each
// waiting out a read of its own (which made the last of n requests wait n
// timeouts).
func TestAdmitSharesAFailedRead(t *testing.T) {
	ctx := context.Background()
	st := openMarks(t)
	svc := service.NewService(st, service.Options{MarkRefresh: time.Nanosecond})
	if err := svc.Admit(ctx, booking.RolePatient, "1", time.Now()); err != nil {
		t.Fatal(err)
	}
	st.reads.Store(0)
	st.hung = make(chan struct{})
	const n = 32
	var wg sync.WaitGroup
	var calling atomic.Int64
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calling.Add(1)
			errs <- svc.Admit(ctx, booking.RolePatient, fmt.Sprint(i+1), time.Now())
		}()
	}
	testkit.Eventually(t, "every request calling Admit while the first read hangs", 10*time.Second,
		func() bool { return calling.Load() == n && st.reads.Load() == 1 })
	close(st.hung)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, booking.ErrUnavailable) {
			t.Fatalf("frozen database: %v, want unavailable", err)
		}
	}
	if got := st.reads.Load(); got > n/4 {
		t.Fatalf("%d reads for %d requests queued behind one failed read, want them to share it", got, n)
	}
}

// BenchmarkAdmit is the cost Admit adds to every authenticated request:
// a map look-up under a read lock while the copy is fresh (the default
// MarkRefresh), one indexed read per interval per instance otherwise.
func BenchmarkAdmit(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		refresh time.Duration
	}{{"fresh-copy", service.DefaultMarkRefresh}, {"read-every-request", time.Nanosecond}} {
		b.Run(c.name, func(b *testing.B) {
			st := openMarks(b)
			svc := service.NewService(st, service.Options{MarkRefresh: c.refresh})
			for i := range 1000 { // marks of signed-out subjects to look through
				if err := st.MoveMarks(ctx, time.Now(), booking.Subject{Role: booking.RolePatient, ID: fmt.Sprint(100000 + i)}); err != nil {
					b.Fatal(err)
				}
			}
			issued := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					i++
					if err := svc.Admit(ctx, booking.RolePatient, "42", issued); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
