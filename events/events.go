// Package events publishes slotd's domain events (booking.Event), the
// stores' audit entries of appointments, to message brokers: RabbitMQ (--amqp) and Kafka
// (--kafka-brokers), each message a CloudEvents 1.0 JSON envelope.
//
// Delivery is at least once and in order per appointment: one relay of all
// instances at a time (the store's lock) takes the oldest events after its
// cursor, in order, every publisher sends them in that order and answers
// the prefix its broker confirmed, and the cursor moves past only the
// prefix every publisher confirmed; the rest is sent again, to all. So a consumer sees an event
// more than once after a crash or a broker failure, never out of order,
// and dedupes on the CloudEvents id (docs/events.md). A broker that is down
// delays events; the state changes that wrote them committed long before.
package events

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/slotd/slotd/booking"
)

// Outbox is what the relay needs of a store (postgres and sqlite).
type Outbox interface {
	// RelayEvents hands the oldest events after the store's cursor (of up
	// to limit entries), in order, to publish and moves the cursor past the
	// prefix it confirmed; 0 while another instance's relay holds the
	// store's lock.
	RelayEvents(ctx context.Context, limit int, publish func([]booking.Event) (int, error)) (int, error)
	// EventBacklog counts the events not yet published.
	EventBacklog(ctx context.Context) (int64, error)
}

// Publisher sends encoded events to one broker, in order, and answers how
// many of them (a prefix) the broker confirmed.
type Publisher interface {
	Name() string
	Publish(ctx context.Context, msgs []Message) (int, error)
	Close() error
}

// Message is one encoded event.
type Message struct {
	ID            string // the CloudEvents id
	Type          string
	AppointmentID string // the ordering key
	Body          []byte // CloudEvents 1.0, structured JSON mode
}

// Source is the CloudEvents source of every event.
const Source = "urn:slotd"

// cloudEvent is the structured-mode CloudEvents 1.0 JSON envelope.
type cloudEvent struct {
	SpecVersion     string    `json:"specversion"`
	ID              string    `json:"id"`
	Source          string    `json:"source"`
	Type            string    `json:"type"`
	Subject         string    `json:"subject"`
	Time            time.Time `json:"time"`
	DataContentType string    `json:"datacontenttype"`
	Data            eventData `json:"data"`
}

// eventData holds ids, the state and a hold's deadline only: never a
// patient's name or contact data (a receiver that needs them reads the API).
type eventData struct {
	AppointmentID int64          `json:"appointmentId"`
	SlotID        int64          `json:"slotId"`
	PatientID     int64          `json:"patientId"`
	Status        booking.Status `json:"status"`
	SuspensionID  int64          `json:"suspensionId,omitempty"`
	HoldExpiresAt *time.Time     `json:"holdExpiresAt,omitempty"`
}

// Encode turns e into its message. The id is the audit entry's, so a
// republished event carries the same one.
func Encode(e booking.Event) Message {
	id := strconv.FormatInt(e.ID, 10)
	appt := strconv.FormatInt(e.AppointmentID, 10)
	b, _ := json.Marshal(cloudEvent{
		SpecVersion: "1.0", ID: id, Source: Source, Type: e.Type,
		Subject: "appointments/" + appt, Time: e.Time.UTC(), DataContentType: "application/json",
		Data: eventData{AppointmentID: e.AppointmentID, SlotID: e.SlotID, PatientID: e.PatientID, Status: e.Status, SuspensionID: e.SuspensionID, HoldExpiresAt: utc(e.HoldExpiresAt)},
	})
	return Message{ID: id, Type: e.Type, AppointmentID: appt, Body: b}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Relay moves events from an Outbox to its publishers until ctx ends.
type Relay struct {
	Outbox     Outbox
	Publishers []Publisher
	Logger     *slog.Logger
	// Batch is the most events per round (default 500); Idle the pause
	// when nothing is left to publish (default 200ms); a failure backs off from
	// one second up to MaxBackoff (default 30s).
	Batch      int
	Idle       time.Duration
	MaxBackoff time.Duration

	backlog   atomic.Int64
	published atomic.Int64
}

// Backlog is the events not yet published at the last round (a gauge).
func (r *Relay) Backlog() float64 { return float64(r.backlog.Load()) }

// Published counts the events this relay published.
func (r *Relay) Published() float64 { return float64(r.published.Load()) }

// Run relays until ctx ends; it never gives up on a broker.
func (r *Relay) Run(ctx context.Context) {
	if r.Batch <= 0 {
		r.Batch = 500
	}
	if r.Idle <= 0 {
		r.Idle = 200 * time.Millisecond
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = 30 * time.Second
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	backoff, failing := time.Second, false
	for ctx.Err() == nil {
		if n, err := r.Outbox.EventBacklog(ctx); err == nil {
			r.backlog.Store(n)
		}
		n, err := r.Outbox.RelayEvents(ctx, r.Batch, r.publish)
		r.published.Add(int64(n))
		wait := r.Idle
		switch {
		case err != nil && ctx.Err() == nil:
			if !failing {
				r.Logger.Warn("events: publishing failed; events wait behind the relay's cursor", "err", err, "retry_in", backoff)
			}
			failing, wait = true, backoff
			backoff = min(backoff*2, r.MaxBackoff)
		case err == nil:
			if failing {
				r.Logger.Info("events: publishing again")
			}
			failing, backoff = false, time.Second
			if n == r.Batch {
				continue // more waiting
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// publish sends evs to every publisher; the prefix all confirmed counts.
func (r *Relay) publish(evs []booking.Event) (int, error) {
	msgs := make([]Message, len(evs))
	for i, e := range evs {
		msgs[i] = Encode(e)
	}
	n := len(msgs)
	var errs []error
	for _, p := range r.Publishers {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		k, err := p.Publish(ctx, msgs)
		cancel()
		n = min(n, k)
		if err != nil {
			errs = append(errs, errors.New(p.Name()+": "+err.Error()))
		}
	}
	return n, errors.Join(errs...)
}
