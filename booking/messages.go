package booking

import (
	"context"
	"time"
)

// States of a message to a patient: queued until a channel accepts it,
// sent once the provider took it, then delivered or failed as the provider
// reports. A failure to reach the provider that retrying may cure leaves
// it queued (with the reason); one that retrying cannot cure fails it.
const (
	MessageQueued    = "queued"
	MessageSent      = "sent"
	MessageDelivered = "delivered"
	MessageFailed    = "failed"
)

// Message is the delivery record of one message to a patient: what was
// sent and how far it went, never its text nor the address it went to.
type Message struct {
	ID int64
	// PatientID is 0 for a sign-up code, sent to an address no patient
	// has yet.
	PatientID int64
	// Kind is the message's kind (notify.KindLoginCode, …).
	Kind string
	// Channel is how it went: "sms", "email" or "webhook", "log".
	Channel string
	State   string
	// ProviderID is the provider's id of the message (Twilio's sid).
	ProviderID string
	// Reason is the provider's or the channel's word on the last failure
	// (Twilio's error code and message), without contact data.
	Reason    string
	Attempts  int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MessageAttempt is the outcome of one delivery attempt of the message
// whose stable key is Key (its idempotency key: a retry is the same
// message).
type MessageAttempt struct {
	Key        string
	PatientID  int64
	Kind       string
	Channel    string
	State      string // MessageQueued (to be retried), MessageSent or MessageFailed
	ProviderID string
	Reason     string
	At         time.Time
}

// MessageReport is a provider's later word on a message it accepted
// (a status callback): its new state and, for a failure, why.
type MessageReport struct {
	ProviderID string
	State      string
	Reason     string
	At         time.Time
}

// messageRank orders the states: a message never moves back.
var messageRank = map[string]int{MessageQueued: 0, MessageSent: 1, MessageDelivered: 2, MessageFailed: 2}

// ValidMessageState reports whether s is one of the message states.
func ValidMessageState(s string) bool { _, ok := messageRank[s]; return ok }

// NextMessageState decides the state a message in cur moves to when an
// attempt or a report says next: forward only, and a delivered or failed
// message stays so (reports arrive out of order, and a late "sent" must
// not undo "delivered"). ok is false when nothing changes but the
// attempt's bookkeeping.
func NextMessageState(cur, next string) (state string, ok bool) {
	rc, known := messageRank[cur]
	rn, valid := messageRank[next]
	if !valid || (known && (rc == 2 || rn < rc)) {
		return cur, false
	}
	return next, true
}

// MessageStore keeps the delivery records of messages to patients.
type MessageStore interface {
	// RecordMessages writes attempts of messages (at most
	// MaxDeliveryKeys) in one transaction: a message is created on its
	// first attempt, then its attempts counted and its state moved as
	// ApplyMessageAttempts decides (the provider id and reason kept with a
	// move). It returns each key's record; not found for an unknown
	// patient, and then nothing is written.
	RecordMessages(ctx context.Context, as []MessageAttempt) (map[string]Message, error)
	// ReportMessage applies a provider's report to the message with its
	// provider id, as ApplyMessageReport decides, and says whether it
	// changed the message; not found for an unknown id. Every provider's
	// ids are its own: Twilio's start "SM"/"MM".
	ReportMessage(ctx context.Context, r MessageReport) (m Message, changed bool, err error)
	// PatientMessages lists a patient's messages, newest first (ids below
	// p.After).
	PatientMessages(ctx context.Context, patientID int64, p Page) ([]Message, error)
	// DeliveryStates returns the states of the messages of keys that have
	// a record (at most MaxDeliveryKeys keys), in one read: a notification
	// job sends a message only when DeliveryDue says so.
	DeliveryStates(ctx context.Context, keys []string) (map[string]string, error)
	// MarkMessage records m.Key's message as m.State after its delivery
	// when the delivery wrote no record of its own: created when it has
	// none, moved when still queued; a record already moved (by the
	// delivery's own RecordMessages, or a provider's report) stays as it
	// is. Not found for an unknown patient.
	MarkMessage(ctx context.Context, m MessageMark) error
}

// MaxDeliveryKeys bounds one DeliveryStates or RecordMessages (a
// notification job's states are read in pages of this many).
const MaxDeliveryKeys = 500

// MessageMark is a notification job's mark after sending a message: sent,
// or failed with the reason (a refusal, the last attempt's failure).
type MessageMark struct {
	Key       string
	PatientID int64
	Kind      string
	State     string // MessageSent or MessageFailed
	Reason    string
	At        time.Time
}

// DeliveryDue decides whether a notification job sends a message whose
// record is in state ("" when it has none yet; queued when an earlier
// attempt failed in a way retrying may cure): a message sent, delivered
// or failed is never sent again by a retried job. A job that dies between
// the provider's acceptance and its record finds the message without one
// and sends it again: at least once for the messages in flight, which
// the receivers drop by their idempotency key.
func DeliveryDue(state string) bool { return state == "" || state == MessageQueued }

// ApplyMessageAttempt is the record of a message after attempt a: a new
// one when found is false, else cur with one more attempt and the state
// NextMessageState allows. A move keeps the attempt's provider id (when it
// gives one) and reason; a message sent or delivered drops an earlier
// failure's reason.
func ApplyMessageAttempt(cur Message, found bool, a MessageAttempt) Message {
	if !found {
		cur = Message{PatientID: a.PatientID, Kind: a.Kind, Channel: a.Channel, State: MessageQueued, CreatedAt: a.At}
	}
	cur.Attempts++
	cur.UpdatedAt = a.At
	if state, ok := NextMessageState(cur.State, a.State); ok {
		cur.State = state
		cur.Channel = a.Channel
		if a.ProviderID != "" {
			cur.ProviderID = a.ProviderID
		}
		cur.Reason = a.Reason
	}
	return cur
}

// ApplyMessageAttempts is ApplyMessageAttempt over a batch, in its order:
// cur holds the records found, by key; it returns each key's record after
// its attempts (two attempts of one key both count).
func ApplyMessageAttempts(cur map[string]Message, as []MessageAttempt) map[string]Message {
	out := make(map[string]Message, len(as))
	for _, a := range as {
		m, found := out[a.Key]
		if !found {
			m, found = cur[a.Key]
		}
		out[a.Key] = ApplyMessageAttempt(m, found, a)
	}
	return out
}

// ApplyMessageReport is the record of cur after a provider's report r,
// and whether it changed.
func ApplyMessageReport(cur Message, r MessageReport) (Message, bool) {
	state, ok := NextMessageState(cur.State, r.State)
	if !ok {
		return cur, false
	}
	if state == cur.State && r.Reason == cur.Reason {
		return cur, false
	}
	cur.State, cur.Reason, cur.UpdatedAt = state, r.Reason, r.At
	return cur, true
}
