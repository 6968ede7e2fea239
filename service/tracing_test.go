package service

import (
	"context"
	"sync"
	"testing"

	"github.com/slotd/slotd/booking"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Each request's span learns what its batch was: the time it waited in the
// lane, how many were decided with it, and how long the decision took.
func TestLaneRecordsWaitBatchAndDecisionOnTheSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	tr := tp.Tracer("test")

	gate := make(chan struct{})
	entered := make(chan struct{}, 4)
	l := newLanes(LaneOptions{MaxBatch: 8}, func(_ context.Context, slotID int64, reqs []booking.BookRequest) ([]booking.BookResult, error) {
		entered <- struct{}{}
		<-gate
		return make([]booking.BookResult, len(reqs)), nil
	})
	var wg sync.WaitGroup
	submit := func(name string) {
		defer wg.Done()
		ctx, span := tr.Start(context.Background(), name)
		l.submit(ctx, 1, booking.BookRequest{IdempotencyKey: name})
		span.End()
	}
	wg.Add(1)
	go submit("first")
	<-entered
	for i, name := range []string{"second", "third"} {
		wg.Add(1)
		go submit(name)
		waitFor(t, func() bool { return l.QueueDepth() == i+1 })
	}
	close(gate)
	wg.Wait()

	sizes := map[string]int64{}
	for _, s := range exp.GetSpans() {
		attrs := map[attribute.Key]attribute.Value{}
		for _, a := range s.Attributes {
			attrs[a.Key] = a.Value
		}
		for _, k := range []attribute.Key{AttrLaneWait, AttrBatchSize, AttrDecideTime} {
			if _, ok := attrs[k]; !ok {
				t.Fatalf("span %s lacks %s: %v", s.Name, k, s.Attributes)
			}
		}
		if attrs[AttrLaneWait].AsFloat64() < 0 || attrs[AttrDecideTime].AsFloat64() < 0 {
			t.Fatalf("span %s: negative times %v", s.Name, s.Attributes)
		}
		sizes[s.Name] = attrs[AttrBatchSize].AsInt64()
	}
	if sizes["first"] != 1 || sizes["second"] != 2 || sizes["third"] != 2 {
		t.Fatalf("batch sizes %v, want first 1, second and third 2", sizes)
	}
}
