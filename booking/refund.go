package booking

import (
	"context"
	"time"
)

// A Refund pays back (part of) one recorded payment. It is written in the
// transaction of the change that gives the paid place back (a cancel, a
// suspension or closure) or that records a payment which cannot be applied
// (late, mismatched), together with the job that asks the payment
// provider for it (NotifyRefundDue). One payment has at most one refund
// (the stores' unique constraint), so two cancels racing never pay back
// twice, and a refund never exceeds what was paid (a CHECK).
type Refund struct {
	ID            int64  `json:"id"`
	AppointmentID int64  `json:"appointmentId"`
	PaymentID     int64  `json:"paymentId"`
	TradeNo       string `json:"tradeNo"`
	// AmountCents is what is paid back, PaidCents what was paid, in the
	// minor units of Currency (the clinic's: the callback refuses any
	// other, so the stores do not repeat it per row).
	AmountCents int64  `json:"amount"`
	PaidCents   int64  `json:"paid"`
	Currency    string `json:"currency"`
	Reason      string `json:"reason"`
	State       string `json:"state"`
	// ProviderRef is the provider's refund id once it succeeded; Failure
	// the provider's last refusal (English, for staff).
	ProviderRef string     `json:"providerRef,omitempty"`
	Failure     string     `json:"failure,omitempty"`
	Attempts    int        `json:"attempts"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	SettledAt   *time.Time `json:"settledAt,omitempty"`
}

// Refund reasons: why the money goes back. RefundErasure is an erasure's:
// it cancels the patient's appointments that have not started.
const (
	RefundPatientCancel  = "patient-cancel"
	RefundStaffCancel    = "staff-cancel"
	RefundSuspension     = "suspension"
	RefundClosure        = "closure"
	RefundErasure        = "erasure"
	RefundLatePayment    = "late-payment"
	RefundAmountMismatch = "amount-mismatch"
)

// Refund states: requested (the provider is being asked, retried with
// backoff), then succeeded or failed (the attempts ran out; staff may
// retry it, which makes it requested again).
const (
	RefundRequested = "requested"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// MaxRefundAttempts is how many times the provider is asked before a
// refund is failed and waits for staff (the job's River attempts).
const MaxRefundAttempts = 8

// MaxRefundFailureLen bounds the provider's refusal kept on a refund.
const MaxRefundFailureLen = 500

// NotifyRefundDue is the outbox's refund job: RefundID is to be asked of
// the payment provider. NotifyRefunded tells the patient it succeeded.
const (
	NotifyRefundDue NotificationKind = "refund-due"
	NotifyRefunded  NotificationKind = "refunded"
)

// CancelRefundReason is the reason of a cancel by patientID (0: staff).
func CancelRefundReason(patientID int64) string {
	if patientID != 0 {
		return RefundPatientCancel
	}
	return RefundStaffCancel
}

// SuspensionRefundReason is the reason of a suspension of scope: a
// doctor's is a suspension, a department's or the clinic's a closure.
func SuspensionRefundReason(scope string) string {
	if scope == ScopeDoctor {
		return RefundSuspension
	}
	return RefundClosure
}

// RefundCase is what deciding a refund's amount reads: the policy of the
// appointment's slot, what was paid, why, when the appointment starts and
// when the place is given back.
type RefundCase struct {
	Policy  Policy
	Paid    int64
	Reason  string
	StartAt time.Time
	At      time.Time
}

// RefundAmount is what is paid back, in minor units. Only a patient's own
// cancel follows the policy's rule (Policy.RefundFullHours and the partial
// band); a suspension, a closure, an erasure, staff cancelling and a
// payment that could not be applied pay back everything. A partial refund
// is rounded down to the minor unit (50 % of 1001 is 500), so it is never
// more than the percentage, and never more than Paid.
func RefundAmount(c RefundCase) int64 {
	if c.Paid <= 0 {
		return 0
	}
	if c.Reason != RefundPatientCancel {
		return c.Paid
	}
	left := c.StartAt.Sub(c.At)
	hours := func(h int) time.Duration { return time.Duration(h) * time.Hour }
	switch {
	case left >= hours(c.Policy.RefundFullHours):
		return c.Paid
	case c.Policy.RefundPartialPercent > 0 && left >= hours(c.Policy.RefundPartialHours):
		return c.Paid * int64(min(c.Policy.RefundPartialPercent, 100)) / 100
	}
	return 0
}

// NewRefund is the refund of payment (id paymentID, paid cents) of an
// appointment for reason, decided at c.At: requested when there is
// something to pay back, succeeded at once (nothing to ask the provider)
// when the rule leaves nothing, so that every paid place given back has its
// record (Reconciliation.UnrefundedCancels).
func NewRefund(paymentID int64, tradeNo string, appointmentID int64, c RefundCase) Refund {
	r := Refund{AppointmentID: appointmentID, PaymentID: paymentID, TradeNo: tradeNo, PaidCents: c.Paid,
		AmountCents: RefundAmount(c), Reason: c.Reason, State: RefundRequested, CreatedAt: c.At, UpdatedAt: c.At}
	if r.AmountCents == 0 {
		at := c.At
		r.State, r.SettledAt = RefundSucceeded, &at
	}
	return r
}

// RefundOutcome is what the provider answered one attempt of refund ID:
// its refund id (ProviderRef) or its refusal (Failure). Final says no
// attempt follows (the last one failed): the refund becomes failed.
type RefundOutcome struct {
	ID          int64
	ProviderRef string
	Failure     string
	Final       bool
}

// SettleRefund decides r's next state from outcome o: noop when r is no
// longer requested (another attempt settled it first, or staff retried a
// failed one meanwhile and this is a stale job).
func SettleRefund(r Refund, o RefundOutcome, now time.Time) (next Refund, noop bool) {
	if r.State != RefundRequested {
		return r, true
	}
	r.Attempts++
	r.UpdatedAt = now
	switch {
	case o.Failure == "":
		r.State, r.ProviderRef, r.Failure, r.SettledAt = RefundSucceeded, o.ProviderRef, "", &now
	case o.Final:
		r.State, r.Failure = RefundFailed, truncate(o.Failure, MaxRefundFailureLen)
	default:
		r.Failure = truncate(o.Failure, MaxRefundFailureLen)
	}
	return r, false
}

// RetryRefund decides a staff retry of r: only a failed refund is asked
// again.
func RetryRefund(r Refund, now time.Time) (Refund, error) {
	if r.State != RefundFailed {
		return r, Errorf(CodeInvalidTransition, "refund %d is %s: only a failed refund can be retried", r.ID, r.State)
	}
	r.State, r.UpdatedAt = RefundRequested, now
	return r, nil
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// refundAudit is what the audit log keeps of a refund: ids, amounts and
// states, never personal data.
type refundAudit struct {
	AppointmentID int64  `json:"appointmentId"`
	Amount        int64  `json:"amount"`
	Reason        string `json:"reason"`
	State         string `json:"state"`
	Attempts      int    `json:"attempts,omitempty"`
	ProviderRef   string `json:"providerRef,omitempty"`
}

func refundAuditOf(r Refund) refundAudit {
	return refundAudit{AppointmentID: r.AppointmentID, Amount: r.AmountCents, Reason: r.Reason, State: r.State,
		Attempts: r.Attempts, ProviderRef: r.ProviderRef}
}

// RefundChange is one change of a refund for the audit log: Action
// ("request", "settle", "retry") moved it from Before (nil: it was just
// written) to Refund.
type RefundChange struct {
	Action string
	Before *Refund
	Refund Refund
}

// AuditRefundChange is the entry of change c.
func AuditRefundChange(ctx context.Context, now time.Time, c RefundChange) AuditEntry {
	ch := AuditChange{Entity: EntityRefund, ID: c.Refund.ID, Action: c.Action, After: refundAuditOf(c.Refund)}
	if c.Before != nil {
		ch.Before = refundAuditOf(*c.Before)
	}
	return Audit(ctx, now, ch)
}

// RefundStore keeps the refunds. Writing one is part of the changes that
// give a paid place back (Cancel, Suspend, ConfirmPayment), never a call
// of its own.
type RefundStore interface {
	// GetRefund returns one refund.
	GetRefund(ctx context.Context, id int64) (Refund, error)
	// ListRefunds lists the refunds in one of states (every one when
	// empty), newest first, one page at a time (ids below p.After).
	ListRefunds(ctx context.Context, states []string, p Page) ([]Refund, error)
	// AppointmentRefunds lists an appointment's refunds, newest first.
	AppointmentRefunds(ctx context.Context, appointmentID int64) ([]Refund, error)
	// SettleRefund records the provider's answer to one attempt
	// (SettleRefund decides), with its audit entry and, on success, the
	// patient's notice (NotifyRefunded), in one transaction.
	SettleRefund(ctx context.Context, o RefundOutcome, now time.Time) (Refund, error)
	// RetryRefund makes a failed refund requested again and writes its
	// job (NotifyRefundDue) in the same transaction.
	RetryRefund(ctx context.Context, id int64, now time.Time) (Refund, error)
	// RefundBasis reads what a cancel of appointmentID would refund from:
	// its applied payment's amount (0: nothing paid) and its slot's policy.
	RefundBasis(ctx context.Context, appointmentID int64) (paid int64, p Policy, err error)
}
