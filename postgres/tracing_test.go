package postgres

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Every query is a child span of the request's, with its SQL text and
// never its arguments (they can be phones or names).
func TestQueriesAreTraced(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })
	s := newStore(t)
	exp.Reset()

	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	const phone = "+33611112222"
	if _, err := s.PatientByPhone(ctx, phone); err == nil {
		t.Fatal("an unknown phone was found")
	}
	parent.End()
	var found bool
	for _, sp := range exp.GetSpans() {
		if sp.Name != "db.query" {
			continue
		}
		for _, a := range sp.Attributes {
			if strings.Contains(a.Value.Emit(), phone) {
				t.Fatalf("span %s records the argument: %v", sp.Name, sp.Attributes)
			}
			if a.Key == "db.query.text" && a.Value.AsString() != "" && sp.Parent.SpanID() == parent.SpanContext().SpanID() {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("no db.query span under the request: %v", exp.GetSpans())
	}
}
