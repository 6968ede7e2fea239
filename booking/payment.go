package booking

import (
	"time"
)

// PaymentConflict is a provider's callback that reused a recorded trade
// number for another appointment or another amount. It is refused
// (CodePaymentConflict) and kept for reconciliation: the provider and the
// clinic disagree about a payment, which a person must look at.
type PaymentConflict struct {
	TradeNo       string    `json:"tradeNo"`
	AppointmentID int64     `json:"appointmentId"`
	AmountCents   int64     `json:"amount"`
	ReceivedAt    time.Time `json:"receivedAt"`
}

// PaymentDecision is what a store does with a payment callback, decided by
// DecidePayment from what it read in its transaction (the appointment
// locked, as every change of it is).
type PaymentDecision struct {
	// Duplicate: the same payment is recorded already; change nothing and
	// answer the recorded one.
	Duplicate bool
	// Conflict: the trade number is recorded for another payment; record
	// the callback as a PaymentConflict, change nothing else, answer Err.
	Conflict bool
	// Otherwise Record is the payment to insert, with its outcome; To,
	// when set, is the appointment's transition (BOOKED when applied,
	// EXPIRED when its hold passed and the expiry job has not come by),
	// announced by Notify.
	Record Payment
	To     Status
	Notify NotificationKind
	// Err is the answer of a payment that is recorded but not applied
	// (CodePaymentRejected) or conflicts (CodePaymentConflict).
	Err *Error
	// RefundReason is set with a payment recorded but not applied: it is
	// paid back in full (RefundLatePayment, RefundAmountMismatch), by a
	// Refund written with it.
	RefundReason string
}

// PaymentReads is what deciding a payment reads: the payment already
// Recorded with its trade number (nil for none), its Appointment (nil when
// there is none) and that one's slot's FeeCents.
type PaymentReads struct {
	Recorded    *Payment
	Appointment *Appointment
	FeeCents    int64
}

// DecidePayment decides payment p at now, given rd. A payment is applied only to
// a HELD appointment whose hold still runs, for the exact fee; any other is
// recorded as needing a refund, with the reason. A hold whose deadline has
// passed is expired on the way, so a payment never wins against it.
func DecidePayment(p Payment, rd PaymentReads, now time.Time) (PaymentDecision, error) {
	recorded, a, fee := rd.Recorded, rd.Appointment, rd.FeeCents
	if recorded != nil {
		if recorded.AppointmentID != p.AppointmentID || recorded.AmountCents != p.AmountCents {
			return PaymentDecision{Conflict: true, Err: Errorf(CodePaymentConflict,
				"trade number %s is recorded for another payment", p.TradeNo)}, nil
		}
		return PaymentDecision{Duplicate: true}, nil
	}
	if a == nil {
		return PaymentDecision{}, NotFound("appointment")
	}
	d := PaymentDecision{Record: p}
	var refusal *Error
	refuse := func(format string, args ...any) { refusal = Errorf(CodePaymentRejected, format, args...) }
	switch {
	case a.Status == StatusHeld && a.HoldExpiresAt != nil && !now.Before(*a.HoldExpiresAt):
		d.To, d.Notify = StatusExpired, NotifyExpiry
		refuse("hold expired")
	case a.Status == StatusHeld && p.AmountCents != fee:
		refuse("amount %d does not match fee %d", p.AmountCents, fee)
		d.RefundReason = RefundAmountMismatch
	case a.Status == StatusHeld:
		// hold_expires_at stays, as the record of the deadline it met.
		d.To, d.Notify = StatusBooked, NotifyConfirmation
	case a.Status == StatusExpired:
		refuse("hold expired")
	case a.Status == StatusCancelled:
		refuse("appointment cancelled")
	default: // BOOKED, or past it: paid (or free) already
		refuse("already paid")
	}
	d.Record.Outcome, d.Record.Reason = PaymentApplied, ""
	if refusal != nil {
		// The record keeps the English reason; the refusal can be translated.
		d.Record.Outcome, d.Record.Reason = PaymentRefund, refusal.Message
		d.Err = refusal
		if d.RefundReason == "" {
			// Too late (expired, cancelled) or once too many (paid already).
			d.RefundReason = RefundLatePayment
		}
	}
	return d, nil
}
