package events

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Topic is the Kafka topic of the events.
const Topic = "slotd.events"

// Kafka publishes with franz-go's idempotent producer (its default: no
// duplicates from its own retries, order kept per partition), keyed by
// appointment id so that one appointment's events share a partition and
// stay in order.
type Kafka struct{ cl *kgo.Client }

// NewKafka returns a producer to the given seed brokers.
func NewKafka(brokers []string, opts ...kgo.Opt) (*Kafka, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.DefaultProduceTopic(Topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.AllowAutoTopicCreation(),
		// By default a record sent to a broker that then never answers is
		// waited for whatever the context says, so a broker gone mid-produce
		// held the relay, and with it every broker's events and the
		// server's shutdown, for ever. Failing it instead may publish it
		// twice when the relay sends it again: consumers dedupe on the id.
		kgo.AllowIdempotentProduceCancellation(),
	}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("--kafka-brokers: %w", err)
	}
	return &Kafka{cl: cl}, nil
}

// Name names the broker in logs.
func (k *Kafka) Name() string { return "kafka" }

// Publish produces msgs and waits for all; the answer is the prefix
// acknowledged.
func (k *Kafka) Publish(ctx context.Context, msgs []Message) (int, error) {
	recs := make([]*kgo.Record, len(msgs))
	for i, m := range msgs {
		recs[i] = &kgo.Record{Key: []byte(m.AppointmentID), Value: m.Body, Headers: []kgo.RecordHeader{
			{Key: "ce_id", Value: []byte(m.ID)}, {Key: "ce_type", Value: []byte(m.Type)},
			{Key: "content-type", Value: []byte("application/cloudevents+json")},
		}}
	}
	// Results come back per partition, not in input order: the confirmed
	// prefix ends at the first record that failed.
	at := make(map[*kgo.Record]int, len(recs))
	for i, r := range recs {
		at[r] = i
	}
	n, err := len(recs), error(nil)
	for _, r := range k.cl.ProduceSync(ctx, recs...) {
		if i := at[r.Record]; r.Err != nil && i < n {
			n, err = i, r.Err
		}
	}
	return n, err
}

// Close flushes nothing more and ends the client.
func (k *Kafka) Close() error { k.cl.Close(); return nil }
