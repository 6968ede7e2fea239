package sqlite

// PLACEHOLDERS while issue 4 is implemented: delete this file when the
// lifecycle methods of notes/lifecycle-contract.md exist.

import (
	"context"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

var errPending = errors.New("sqlite: not implemented yet")

func (s *Store) ConfirmPayment(context.Context, booking.Payment, time.Time) (booking.PaymentResult, error) {
	return booking.PaymentResult{}, errPending
}
func (s *Store) ExpireHolds(context.Context, time.Time, int) ([]booking.Appointment, error) {
	return nil, errPending
}
func (s *Store) Transition(context.Context, int64, booking.Status, time.Time) (booking.Appointment, error) {
	return booking.Appointment{}, errPending
}
func (s *Store) Suspend(context.Context, booking.Suspension, time.Time) (booking.SuspensionResult, error) {
	return booking.SuspensionResult{}, errPending
}
func (s *Store) GetSuspension(context.Context, int64) (booking.Suspension, error) {
	return booking.Suspension{}, errPending
}
func (s *Store) Reconcile(context.Context, time.Time, bool) (booking.Reconciliation, error) {
	return booking.Reconciliation{}, errPending
}
