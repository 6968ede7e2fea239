package postgres

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// tracer makes a span of every query and pipelined batch (the booking
// batch's reads are one), under the request's span, and counts them into
// n (Store.Queries: which pool answered what). The SQL text is recorded,
// never its arguments: those can be phones or names.
type tracer struct {
	t trace.Tracer
	n *atomic.Int64
}

func newTracer(n *atomic.Int64) tracer {
	return tracer{otel.Tracer("github.com/slotd/slotd/postgres"), n}
}

var (
	_ pgx.QueryTracer = tracer{}
	_ pgx.BatchTracer = tracer{}
)

func (t tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.n.Add(1)
	ctx, _ = t.t.Start(ctx, "db.query", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", "postgresql"), attribute.String("db.query.text", d.SQL)))
	return ctx
}

func (t tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	end(ctx, d.Err)
}

func (t tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	t.n.Add(1)
	ctx, _ = t.t.Start(ctx, "db.batch", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system", "postgresql"), attribute.Int("db.batch.size", d.Batch.Len())))
	return ctx
}

func (t tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (t tracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchEndData) {
	end(ctx, d.Err)
}

func end(ctx context.Context, err error) {
	span := trace.SpanFromContext(ctx)
	if err != nil && err != pgx.ErrNoRows {
		span.RecordError(err)
		span.SetStatus(codes.Error, "query failed")
	}
	span.End()
}
