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
	"go.opentelemetry.io/otel/trace/noop"
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

// Tracing is the tracing SetupTracing installed: on when spans are
// exported somewhere, off otherwise.
type Tracing struct {
	on       bool
	shutdown func(context.Context) error
}

// SetupTracing installs the process's tracer provider and the W3C
// propagators (traceparent, baggage). Spans are made and exported with OTLP
// over HTTP only when OTLPConfigured (the exporter reads the
// OTEL_EXPORTER_OTLP_* variables itself) or exp is not nil (tests: an
// in-memory exporter). Otherwise the provider is a no-op: a span nobody
// receives cost every request a third of the server's ceiling (docs/performance.md).
func SetupTracing(ctx context.Context, version string, exp sdktrace.SpanExporter) (*Tracing, error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if exp == nil && !OTLPConfigured() {
		otel.SetTracerProvider(noop.NewTracerProvider())
		return &Tracing{shutdown: func(context.Context) error { return nil }}, nil
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", "slotd"), attribute.String("service.version", version)))
	if err != nil {
		return nil, err
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample()))}
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
	return &Tracing{on: true, shutdown: tp.Shutdown}, nil
}

// Shutdown flushes the spans still queued.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// Handler wraps h in a server span per request (otelhttp), continuing the
// caller's trace when it sent traceparent. The span is named by the route
// pattern once a mux has matched it, never by the path (a path can hold a
// feed's secret token). With tracing off there is no span: a caller's
// traceparent is only read into the context, so that log lines still lead
// to the caller's trace.
func (t *Tracing) Handler(h http.Handler) http.Handler {
	if !t.on {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, sent := r.Header["Traceparent"]; sent && traced(r) {
				r = r.WithContext(otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
			}
			h.ServeHTTP(w, r)
		})
	}
	return otelhttp.NewHandler(h, "http",
		otelhttp.WithFilter(traced),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
			if r.Pattern != "" {
				return r.Pattern
			}
			return r.Method
		}))
}

// traced reports whether r gets a span: an iCal feed's path is its secret;
// the staff's patient search has a phone or e-mail in its query string,
// which a span would record; probes and scrapes are noise.
func traced(r *http.Request) bool {
	p := r.URL.Path
	return !strings.HasPrefix(p, "/ical/") && p != "/healthz" && p != "/readyz" && p != "/metrics" &&
		p != "/api/admin/patients"
}
