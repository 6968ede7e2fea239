package fhir

import (
	"context"
	"testing"
	"time"
)

// TestBulkRebuildsAtMostOncePerInterval: a burst of changes right after a
// rebuild waits for the rest of MinInterval, and then all of them are in
// one rebuild.
func TestBulkRebuildsAtMostOncePerInterval(t *testing.T) {
	f := newFixture(t)
	f.h.bulk.opts.Debounce = time.Millisecond
	f.h.bulk.opts.Refresh = time.Hour
	f.h.bulk.opts.MinInterval = time.Hour
	waits, release := make(chan time.Duration, 1), make(chan struct{})
	f.h.bulk.wait = func(ctx context.Context, d time.Duration) bool {
		if d > f.h.bulk.opts.Debounce {
			waits <- d
			<-release
		}
		return ctx.Err() == nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.h.Run(ctx) }()
	defer func() { cancel(); <-done }()
	first := f.waitSnapshot(nil)
	must(t, f.svc.Book(context.Background(), f.p1.ID, f.open.ID, "burst").Err)
	for range 100 {
		f.h.bulk.changed()
	}
	if d := <-waits; d < 59*time.Minute {
		t.Fatalf("after a change the run waits %v before rebuilding, want the rest of the hour", d)
	}
	f.h.bulk.mu.Lock()
	same := f.h.bulk.snap == first
	f.h.bulk.mu.Unlock()
	if !same {
		t.Fatal("rebuilt within the interval")
	}
	close(release)
	next := f.waitSnapshot(first)
	if next.res["Slot/"+id(f.open.ID)].hash == first.res["Slot/"+id(f.open.ID)].hash {
		t.Fatal("the rebuild after the interval misses the booking")
	}
}

// TestBulkReadsBounded: a rebuild stops reading slots at MaxSlots, so its
// rows and memory do not grow with the slots in the database.
func TestBulkReadsBounded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	read := func(max int) (int64, int) {
		f.h.bulk.opts.MaxSlots = max
		before := f.store.listSlots.Load()
		s, err := f.h.bulk.regenerate(ctx)
		must(t, err)
		return f.store.listSlots.Load() - before, len(s.files["Slot"])
	}
	all, n := read(1_000_000)
	if all < 2 || n < 2 {
		t.Fatalf("the fixture publishes %d slots of %d schedules; the test needs two of each", n, all)
	}
	reads, lines := read(1)
	if reads != 1 || lines != 1 {
		t.Fatalf("with MaxSlots 1: %d slot reads and %d lines, want 1 and 1", reads, lines)
	}
	s, err := f.h.bulk.regenerate(ctx)
	must(t, err)
	if len(s.files["Schedule"]) != int(all) {
		t.Fatalf("the bound dropped Schedules: %d of %d", len(s.files["Schedule"]), all)
	}
}
