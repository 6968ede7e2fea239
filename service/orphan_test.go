package service_test

import (
	"github.com/slotd/slotd/service"

	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/sqlite"
)

// heldBook is a store whose first booking decision waits for release before
// it commits, whatever its context says: a database that finishes a
// transaction its client has stopped waiting for.
type heldBook struct {
	*sqlite.Store
	entered chan struct{}
	release chan struct{}
	started atomic.Bool
}

func (h *heldBook) Book(ctx context.Context, slotID int64, reqs []booking.BookRequest, now time.Time) ([]booking.BookResult, error) {
	if !h.started.Swap(true) {
		close(h.entered)
		<-h.release
		ctx = context.WithoutCancel(ctx)
	}
	return h.Store.Book(ctx, slotID, reqs, now)
}

// TestRetryWaitsForTimedOutLaneDecision: a booking that timed out in its
// lane (503) is still decided later; a retry of its key arriving meanwhile,
// with the slot known full, must not answer slot-full and then see the
// first attempt book: it waits for that decision and replays it (the chaos
// run's "p4 book → full", then already-booked, on PostgreSQL).
func TestRetryWaitsForTimedOutLaneDecision(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "slotd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 2, 7, 0, 0, 0, time.UTC)
	dep, err := st.CreateDepartment(ctx, booking.Department{Name: "GP"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := st.CreateDoctor(ctx, booking.Doctor{Name: "Dr A", DepartmentID: dep.ID, TimeZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	sl, err := st.CreateSlot(ctx, booking.Slot{DoctorID: doc.ID, StartAt: now.Add(2 * time.Hour), EndAt: now.Add(2*time.Hour + 15*time.Minute),
		Capacity: 1, OpensAt: now.Add(-time.Hour), Status: booking.SlotOpen, HoldSeconds: 900})
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreatePatient(ctx, booking.Patient{Name: "Pat", Phone: "+33600000001"})
	if err != nil {
		t.Fatal(err)
	}
	h := &heldBook{Store: st, entered: make(chan struct{}), release: make(chan struct{})}
	svc := service.NewService(h, service.Options{Now: func() time.Time { return now }, Timeout: 500 * time.Millisecond,
		Gates: service.GateOptions{FullTTL: time.Hour}})

	// The first attempt reaches the store and times out there.
	if r := svc.Book(ctx, p.ID, sl.ID, "k"); booking.ErrorCode(r.Err) != booking.CodeUnavailable {
		t.Fatalf("first attempt: %+v, want unavailable", r)
	}
	<-h.entered
	// Another instance found the slot full meanwhile.
	svc.Receive(booking.Signal{Kind: booking.SignalFull, SlotID: sl.ID})

	// A retry while the first attempt is still held cannot be answered.
	if r := svc.Book(ctx, p.ID, sl.ID, "k"); booking.ErrorCode(r.Err) != booking.CodeUnavailable {
		close(h.release)
		t.Fatalf("retry while the first attempt is undecided: %+v, want unavailable", r)
	}
	retried := make(chan booking.BookResult, 1)
	go func() { retried <- svc.Book(context.Background(), p.ID, sl.ID, "k") }()
	close(h.release)
	r := <-retried
	if r.Err != nil || !r.Replayed || r.Appointment.PatientID != p.ID {
		t.Fatalf("retry after the first attempt booked: %+v (err %v), want its appointment replayed", r, r.Err)
	}
}
