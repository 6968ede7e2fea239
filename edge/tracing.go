package edge

import (
	"context"
	"net/http"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// OTLPConfigured reports whether the standard OTEL_EXPORTER_OTLP_*
// variables ask for an OTLP export of traces.
func OTLPConfigured() bool {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// SetupTracing installs the process's tracer provider and the W3C
// propagators (traceparent, baggage). Spans are always made, so that log
// lines carry a trace id that a caller's traceparent chose; they are
// exported with OTLP over HTTP only when OTLPConfigured (the exporter reads
// the OTEL_EXPORTER_OTLP_* variables itself); exp, when not nil, receives
// them too (tests: an in-memory exporter). shutdown flushes what is queued.
func SetupTracing(ctx context.Context, version string, exp sdktrace.SpanExporter) (shutdown func(context.Context) error, err error) {
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", "slotd"), attribute.String("service.version", version)))
	if err != nil {
		return nil, err
	}
	// Without an exporter spans are not recorded (no cost beyond their
	// ids, which the log lines still carry, the caller's when it sent one).
	sampler := sdktrace.NeverSample()
	if exp != nil || OTLPConfigured() {
		sampler = sdktrace.AlwaysSample()
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sdktrace.ParentBased(sampler))}
	if exp != nil {
		opts = append(opts, sdktrace.WithSyncer(exp))
	}
	if OTLPConfigured() {
		otlp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sdktrace.WithBatcher(otlp))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// Traced wraps h in a server span per request (otelhttp), continuing the
// caller's trace when it sent traceparent. The span is named by the route
// pattern once a mux has matched it, never by the path (a path can hold a
// feed's secret token).
func Traced(h http.Handler) http.Handler {
	return otelhttp.NewHandler(h, "http",
		// An iCal feed's path is its secret; probes and scrapes are noise.
		otelhttp.WithFilter(func(r *http.Request) bool {
			p := r.URL.Path
			return !strings.HasPrefix(p, "/ical/") && p != "/healthz" && p != "/readyz" && p != "/metrics"
		}),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if r.Pattern != "" {
				return r.Pattern
			}
			return r.Method
		}))
}
