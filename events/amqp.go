package events

import (
	"context"
	"errors"
	"fmt"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"
)

// RabbitMQ names. Events go to a durable topic exchange with the event type
// as routing key; a consumer's queue names DeadLetterExchange as its
// x-dead-letter-exchange, so a message it rejects (a poison message) ends
// in DeadLetterQueue instead of being redelivered forever.
const (
	Exchange           = "slotd.events"
	DeadLetterExchange = "slotd.events.dlx"
	DeadLetterQueue    = "slotd.events.dead"
)

// AMQP publishes to RabbitMQ with publisher confirms. It (re)connects on
// demand, so a broker that was down is used again by the next round.
type AMQP struct {
	url string

	mu   sync.Mutex
	conn *amqp.Connection
	ch   *amqp.Channel
}

// NewAMQP returns a publisher to the broker at url (amqp://…); it connects
// at the first Publish.
func NewAMQP(url string) *AMQP { return &AMQP{url: url} }

// Name names the broker in logs.
func (a *AMQP) Name() string { return "rabbitmq" }

// Declare declares the exchanges and the dead-letter queue on ch; both the
// publisher and consumers call it (declarations are idempotent).
func Declare(ch *amqp.Channel) error {
	if err := ch.ExchangeDeclare(Exchange, "topic", true, false, false, false, nil); err != nil {
		return err
	}
	if err := ch.ExchangeDeclare(DeadLetterExchange, "fanout", true, false, false, false, nil); err != nil {
		return err
	}
	if _, err := ch.QueueDeclare(DeadLetterQueue, true, false, false, false, nil); err != nil {
		return err
	}
	return ch.QueueBind(DeadLetterQueue, "", DeadLetterExchange, false, nil)
}

// DeclareQueue declares a consumer's durable queue bound to every event,
// dead-lettering to DeadLetterExchange.
func DeclareQueue(ch *amqp.Channel, name string) error {
	if err := Declare(ch); err != nil {
		return err
	}
	if _, err := ch.QueueDeclare(name, true, false, false, false, amqp.Table{"x-dead-letter-exchange": DeadLetterExchange}); err != nil {
		return err
	}
	return ch.QueueBind(name, "#", Exchange, false, nil)
}

func (a *AMQP) connect() error {
	if a.ch != nil && !a.ch.IsClosed() {
		return nil
	}
	a.closeLocked()
	conn, err := amqp.Dial(a.url)
	if err != nil {
		return err
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Confirm(false)
	}
	if err == nil {
		err = Declare(ch)
	}
	if err != nil {
		conn.Close()
		return err
	}
	a.conn, a.ch = conn, ch
	return nil
}

// Publish sends msgs as persistent messages and waits for the broker's
// confirms; the answer is the prefix confirmed.
func (a *AMQP) Publish(ctx context.Context, msgs []Message) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.connect(); err != nil {
		return 0, err
	}
	confirms := make([]*amqp.DeferredConfirmation, 0, len(msgs))
	var err error
	for _, m := range msgs {
		var dc *amqp.DeferredConfirmation
		dc, err = a.ch.PublishWithDeferredConfirmWithContext(ctx, Exchange, m.Type, false, false, amqp.Publishing{
			ContentType: "application/cloudevents+json", DeliveryMode: amqp.Persistent,
			MessageId: m.ID, Type: m.Type, Body: m.Body,
			Headers: amqp.Table{"appointment": m.AppointmentID},
		})
		if err != nil {
			break
		}
		confirms = append(confirms, dc)
	}
	for i, dc := range confirms {
		ok, werr := dc.WaitContext(ctx)
		if werr != nil || !ok {
			a.closeLocked()
			return i, errors.Join(werr, fmt.Errorf("broker did not confirm event %s", msgs[i].ID))
		}
	}
	if err != nil {
		a.closeLocked()
	}
	return len(confirms), err
}

func (a *AMQP) closeLocked() {
	if a.conn != nil {
		a.conn.Close()
	}
	a.conn, a.ch = nil, nil
}

// Close ends the connection.
func (a *AMQP) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closeLocked()
	return nil
}
