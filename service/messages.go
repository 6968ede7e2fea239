package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/slotd/slotd/booking"
	"github.com/slotd/slotd/notify"
)

// Outcomes of a delivery, told to a MessageObserver.
const (
	MessageSentOutcome      = "sent"      // a channel accepted it
	MessageRetryOutcome     = "retry"     // an attempt failed; the job tries again
	MessageFailedOutcome    = "failed"    // it cannot be delivered (the channel's or the provider's word)
	MessageDeliveredOutcome = "delivered" // the provider reports it delivered
)

// MessageOutcomes are every outcome a MessageObserver is told.
var MessageOutcomes = []string{MessageSentOutcome, MessageRetryOutcome, MessageFailedOutcome, MessageDeliveredOutcome}

// MessageObserver counts what happens to messages (metrics:
// slotd_messages_total{channel,outcome}).
type MessageObserver interface {
	Message(channel, outcome string)
}

// ChannelStatus is what this process saw of one channel: its last
// accepted message and its last failure (and why), zero when none yet.
type ChannelStatus struct {
	Channel     string    `json:"channel"`
	LastSent    time.Time `json:"lastSent,omitzero"`
	LastFailure time.Time `json:"lastFailure,omitzero"`
	Reason      string    `json:"reason,omitempty"`
}

// Working reports whether the channel's last attempt succeeded (or none
// was made yet).
func (c ChannelStatus) Working() bool { return !c.LastFailure.After(c.LastSent) }

// Deliveries is a notifier that records every message's delivery in the
// store (booking.MessageStore) and counts it: the one path of sign-in
// codes and appointment messages to their channels. Records hold the
// channel, state, the provider's id and reason: never the text nor the
// address.
type Deliveries struct {
	svc      *Service
	next     notify.Notifier
	channels []string
	observer MessageObserver
	log      *slog.Logger

	records recorder

	mu     sync.Mutex
	status map[string]*ChannelStatus
}

// DeliveriesOptions configure Service.Deliveries.
type DeliveriesOptions struct {
	// Notifier delivers (required).
	Notifier notify.Notifier
	// Channels names the configured channels, for ChannelStatus.
	Channels []string
	Observer MessageObserver
	Logger   *slog.Logger
}

// Deliveries wraps opts.Notifier so that each message records its delivery.
func (s *Service) Deliveries(opts DeliveriesOptions) *Deliveries {
	if opts.Notifier == nil {
		panic("service: DeliveriesOptions.Notifier is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	d := &Deliveries{svc: s, next: opts.Notifier, channels: opts.Channels, observer: opts.Observer, log: opts.Logger,
		status: map[string]*ChannelStatus{}}
	for _, c := range opts.Channels {
		d.status[c] = &ChannelStatus{Channel: c}
	}
	d.records.write = func(ctx context.Context, as []booking.MessageAttempt) error {
		_, err := bounded(s, ctx, func(ctx context.Context) (map[string]booking.Message, error) {
			return s.store.RecordMessages(ctx, as)
		})
		return err
	}
	return d
}

// recorder writes the delivery records of concurrent sends together. A
// record that finds none being written is written at once, with those
// queued meanwhile; the ones arriving during a write wait for the next,
// which the first of them writes. Each record is still written as soon
// as the write before it ends, so a crash finds no more messages sent and
// unrecorded than one record at a time would (those in flight), and one
// commit stands for many.
type recorder struct {
	write func(ctx context.Context, as []booking.MessageAttempt) error

	mu      sync.Mutex
	writing bool
	queue   []*pendingRecord
}

type pendingRecord struct {
	a    booking.MessageAttempt
	err  error
	turn chan bool // true: this one writes the next batch
}

// record writes a with the others waiting, and returns a's error.
func (r *recorder) record(ctx context.Context, a booking.MessageAttempt) error {
	p := &pendingRecord{a: a, turn: make(chan bool, 1)}
	r.mu.Lock()
	r.queue = append(r.queue, p)
	lead := !r.writing
	r.writing = true
	r.mu.Unlock()
	if !lead && !<-p.turn {
		return p.err // written by another
	}
	// p is first in the queue: it was empty, or p was handed the turn.
	r.mu.Lock()
	n := min(len(r.queue), booking.MaxDeliveryKeys)
	batch := r.queue[:n:n]
	r.queue = r.queue[n:]
	r.mu.Unlock()
	r.writeBatch(ctx, batch)
	for _, q := range batch[1:] {
		q.turn <- false
	}
	r.mu.Lock()
	if len(r.queue) == 0 {
		r.writing = false
		r.mu.Unlock()
	} else {
		next := r.queue[0]
		r.mu.Unlock()
		next.turn <- true
	}
	return p.err
}

// writeBatch writes the batch's records, each alone when together they
// name a patient no longer there (erased), so that one does not fail the
// others.
func (r *recorder) writeBatch(ctx context.Context, batch []*pendingRecord) {
	as := make([]booking.MessageAttempt, len(batch))
	for i, q := range batch {
		as[i] = q.a
	}
	err := r.write(ctx, as)
	if len(batch) > 1 && booking.ErrorCode(err) == booking.CodeNotFound {
		for _, q := range batch {
			q.err = r.write(ctx, []booking.MessageAttempt{q.a})
		}
		return
	}
	for _, q := range batch {
		q.err = err
	}
}

// Notify delivers m and records how it went.
func (d *Deliveries) Notify(ctx context.Context, m notify.Message) error {
	_, err := d.Send(ctx, m)
	return err
}

// NotifyRecorded delivers m like Notify and says whether its record was
// written: a notification job's mark, which the job then need not write
// again.
func (d *Deliveries) NotifyRecorded(ctx context.Context, m notify.Message) (recorded bool, err error) {
	_, recorded, err = d.send(ctx, m)
	return recorded, err
}

// Send delivers m, records the attempt (queued to be retried, sent, or
// failed with the reason) and returns the channel's receipt and error.
// A failure to record only logs: the message went, or goes, anyway.
func (d *Deliveries) Send(ctx context.Context, m notify.Message) (notify.Receipt, error) {
	rc, _, err := d.send(ctx, m)
	return rc, err
}

func (d *Deliveries) send(ctx context.Context, m notify.Message) (rc notify.Receipt, recorded bool, err error) {
	rc, err = notify.Send(ctx, d.next, m)
	channel := rc.Channel
	if channel == "" {
		channel = "none"
	}
	a := booking.MessageAttempt{Key: m.IdempotencyKey, PatientID: m.PatientID, Kind: m.Kind, Channel: channel,
		State: booking.MessageSent, ProviderID: rc.ProviderID, At: d.svc.now()}
	outcome := MessageSentOutcome
	switch {
	case err != nil && notify.IsPermanent(err):
		a.State, a.Reason, outcome = booking.MessageFailed, notify.Reason(err), MessageFailedOutcome
	case err != nil && ctx.Value(finalAttemptKey{}) != nil:
		a.State, a.Reason, outcome = booking.MessageFailed, notify.Reason(err), MessageFailedOutcome
	case err != nil:
		a.State, a.Reason, outcome = booking.MessageQueued, notify.Reason(err), MessageRetryOutcome
	}
	d.saw(channel, a)
	if d.observer != nil {
		d.observer.Message(channel, outcome)
	}
	// A sign-up code has no patient yet: recorded all the same (no
	// patient, no address), so that its provider's report finds it.
	if m.IdempotencyKey != "" {
		rerr := d.records.record(context.WithoutCancel(ctx), a)
		if rerr != nil {
			d.log.WarnContext(ctx, "recording a message's delivery failed", "patientId", m.PatientID, "kind", m.Kind, "err", rerr)
		}
		recorded = rerr == nil
	}
	return rc, recorded, err
}

type finalAttemptKey struct{}

// FinalAttempt marks ctx as the last attempt of a message (the job gives
// up after it): a failure then fails the message instead of leaving it
// queued.
func FinalAttempt(ctx context.Context) context.Context {
	return context.WithValue(ctx, finalAttemptKey{}, true)
}

// saw keeps the channel's last success or failure.
func (d *Deliveries) saw(channel string, a booking.MessageAttempt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.status[channel]
	if st == nil {
		st = &ChannelStatus{Channel: channel}
		d.status[channel] = st
	}
	if a.State == booking.MessageSent {
		st.LastSent = a.At
		return
	}
	st.LastFailure, st.Reason = a.At, a.Reason
}

// Channels returns the status of every configured channel (and of any
// other a message went by), in the order configured.
func (d *Deliveries) Channels() []ChannelStatus {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]ChannelStatus, 0, len(d.status))
	seen := map[string]bool{}
	for _, c := range d.channels {
		out = append(out, *d.status[c])
		seen[c] = true
	}
	for c, st := range d.status {
		if !seen[c] {
			out = append(out, *st)
		}
	}
	return out
}

// Report applies a provider's status report (a verified callback) to its
// message, and counts a delivery or a failure it newly reports. Unknown
// provider ids are not found.
func (d *Deliveries) Report(ctx context.Context, r booking.MessageReport) (booking.Message, error) {
	if !booking.ValidMessageState(r.State) {
		return booking.Message{}, booking.Errorf(booking.CodeInvalidRequest, "unknown message state")
	}
	r.At = d.svc.now()
	r.Reason = notify.Scrub(r.Reason)
	type reported struct {
		m       booking.Message
		changed bool
	}
	rep, err := bounded(d.svc, ctx, func(ctx context.Context) (reported, error) {
		m, changed, err := d.svc.store.ReportMessage(ctx, r)
		return reported{m, changed}, err
	})
	m := rep.m
	if err == nil && d.observer != nil && rep.changed {
		switch r.State {
		case booking.MessageDelivered:
			d.observer.Message(m.Channel, MessageDeliveredOutcome)
		case booking.MessageFailed:
			d.observer.Message(m.Channel, MessageFailedOutcome)
		}
	}
	return m, err
}

// PatientMessages lists a patient's messages, newest first, one page
// (1 to booking.MaxPageLimit): the staff's view of what reached them.
func (s *Service) PatientMessages(ctx context.Context, patientID int64, p booking.Page) ([]booking.Message, error) {
	if p.Limit < 1 || p.Limit > booking.MaxPageLimit {
		return nil, booking.Errorf(booking.CodeInvalidRequest, "a page holds 1 to %d messages", booking.MaxPageLimit)
	}
	return bounded(s, ctx, func(ctx context.Context) ([]booking.Message, error) {
		return s.store.PatientMessages(ctx, patientID, p)
	})
}

// DeliveryStates returns the states of a notification job's messages
// that have a record, at most booking.MaxDeliveryKeys at once: a message
// is due when booking.DeliveryDue says so (not when a previous run of the
// job sent or failed it).
func (s *Service) DeliveryStates(ctx context.Context, keys []string) (map[string]string, error) {
	if len(keys) > booking.MaxDeliveryKeys {
		return nil, booking.Errorf(booking.CodeInvalidRequest, "at most %d messages at once", booking.MaxDeliveryKeys)
	}
	return bounded(s, ctx, func(ctx context.Context) (map[string]string, error) {
		return s.store.DeliveryStates(ctx, keys)
	})
}

// MarkMessage marks a notification job's message sent or failed once its
// delivery returned, so that the job, retried, does not send it again.
func (s *Service) MarkMessage(ctx context.Context, m booking.MessageMark) error {
	m.At = s.now()
	_, err := bounded(s, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.store.MarkMessage(ctx, m)
	})
	return err
}
