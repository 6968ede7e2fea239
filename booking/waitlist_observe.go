package booking

import (
	"context"
	"strings"
)

// WaitlistObserver is what an Options.Observer may also implement to count
// the waitlist's offers and the reminders (cmd/slotd's metrics do).
type WaitlistObserver interface {
	// Offers counts n offers by outcome: OfferMade, OfferAccepted,
	// OfferDeclined, OfferExpired.
	Offers(outcome string, n int)
	// Reminders counts n reminders by outcome: ReminderEnqueued,
	// ReminderPassed (the scans), ReminderDelivered, ReminderDropped (the
	// notification worker).
	Reminders(outcome string, n int)
}

// Offer and reminder outcomes, the metrics' label values.
const (
	OfferMade     = "made"
	OfferAccepted = "accepted"
	OfferDeclined = "declined"
	OfferExpired  = "expired"

	ReminderEnqueued  = "enqueued"
	ReminderPassed    = "passed"
	ReminderDelivered = "delivered"
	ReminderDropped   = "dropped"
)

// OfferOutcomes and ReminderOutcomes list the label values, so that every
// series exists from the start.
var (
	OfferOutcomes    = []string{OfferMade, OfferAccepted, OfferDeclined, OfferExpired}
	ReminderOutcomes = []string{ReminderEnqueued, ReminderPassed, ReminderDelivered, ReminderDropped}
)

// IsOffer reports whether a is a waitlist offer's appointment (its key is
// an OfferKey), accepted or not.
func IsOffer(a Appointment) bool { return strings.HasPrefix(a.IdempotencyKey, offerKeyPrefix) }

func (s *Service) observeOffers(outcome string, n int) {
	if o, ok := s.observer.(WaitlistObserver); ok && n > 0 {
		o.Offers(outcome, n)
	}
}

func (s *Service) observeReminders(outcome string, n int) {
	if o, ok := s.observer.(WaitlistObserver); ok && n > 0 {
		o.Reminders(outcome, n)
	}
}

// CountReminder counts one reminder the notification worker delivered
// (ReminderDelivered) or dropped (ReminderDropped): it sees the delivery.
func (s *Service) CountReminder(outcome string) { s.observeReminders(outcome, 1) }

// WaitlistCounts counts the live entries by state (Store.WaitlistCounts).
func (s *Service) WaitlistCounts(ctx context.Context) (map[string]int, error) {
	return bounded(s, ctx, func(ctx context.Context) (map[string]int, error) { return s.store.WaitlistCounts(ctx) })
}
