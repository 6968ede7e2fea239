package service

import (
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// tracer names the booking spans. It is asked of the global provider at
// each use: a tracer kept from before would stay bound to the first
// provider ever installed (OpenTelemetry's global delegation), not the one
// serve installs now.
func tracer() trace.Tracer { return otel.Tracer("github.com/slotd/slotd/service") }

// Attributes of the booking span: where a booking's time went.
const (
	AttrSlotID     = attribute.Key("slotd.slot_id")
	AttrOutcome    = attribute.Key("slotd.booking.outcome")
	AttrGated      = attribute.Key("slotd.booking.gated")
	AttrLaneWait   = attribute.Key("slotd.lane.wait_seconds")
	AttrBatchSize  = attribute.Key("slotd.batch.size")
	AttrDecideTime = attribute.Key("slotd.batch.decision_seconds")
)

// spanBatch is what a request's span learns from the batch that decided it.
func spanBatch(wait time.Duration, size int, decision time.Duration) []attribute.KeyValue {
	return []attribute.KeyValue{
		AttrLaneWait.Float64(wait.Seconds()),
		AttrBatchSize.Int(size),
		AttrDecideTime.Float64(decision.Seconds()),
	}
}
