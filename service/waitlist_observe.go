package service

import (
	"context"
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
