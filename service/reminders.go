package service

import (
	"context"

	"github.com/slotd/slotd/booking"
)

// SendReminders runs one reminder scan at the service's clock with its
// offsets (Options.Reminders) and reports what it did.
func (s *Service) SendReminders(ctx context.Context) (booking.ReminderScan, error) {
	scan, err := bounded(s, ctx, func(ctx context.Context) (booking.ReminderScan, error) {
		return s.store.SendReminders(ctx, s.reminders, s.now(), booking.ReminderScanLimit)
	})
	if err == nil {
		s.observeReminders(booking.ReminderEnqueued, scan.Sent)
		s.observeReminders(booking.ReminderPassed, scan.Passed)
	}
	return scan, err
}

func (s *Service) observeReminders(outcome string, n int) {
	if o, ok := s.observer.(WaitlistObserver); ok && n > 0 {
		o.Reminders(outcome, n)
	}
}

// CountReminder counts one reminder the notification worker delivered
// (ReminderDelivered) or dropped (ReminderDropped): it sees the delivery.
func (s *Service) CountReminder(outcome string) { s.observeReminders(outcome, 1) }
