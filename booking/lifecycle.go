package booking

import "time"

// NotificationKind says what a notification announces. Each kind is valid
// only while its appointment is in the state it announces (see Announces):
// a worker drops a message whose appointment has moved on.
type NotificationKind string

// Notification kinds.
const (
	NotifyConfirmation NotificationKind = "confirmation" // the appointment is BOOKED
	NotifyCancellation NotificationKind = "cancellation" // cancelled by the patient or staff
	NotifyExpiry       NotificationKind = "expiry"       // the unpaid hold expired
	NotifySuspension   NotificationKind = "suspension"   // cancelled because the doctor's period was suspended
	NotifyRescheduled  NotificationKind = "rescheduled"  // moved to another slot (HELD or BOOKED)
	NotifyReminder     NotificationKind = "reminder"     // a BOOKED appointment starts soon
)

// Announces is the state an appointment must be in for a notification of
// kind k to still be true.
func (k NotificationKind) Announces() Status {
	switch k {
	case NotifyConfirmation, NotifyReminder:
		return StatusBooked
	case NotifyExpiry:
		return StatusExpired
	case NotifyQueueAhead:
		return StatusArrived
	default:
		return StatusCancelled
	}
}

// Still reports whether a notification of kind k is still true of an
// appointment in state st: a move is true of a place still held (HELD
// awaiting payment or BOOKED), every other kind of its one state.
func (k NotificationKind) Still(st Status) bool {
	switch k {
	case NotifyRescheduled:
		return st.Active()
	case NotifyOffer, NotifyLeftoverOffer:
		return st == StatusHeld
	case NotifyRefunded:
		// Money paid back stays paid back, whatever the appointment did.
		return true
	}
	return st == k.Announces()
}

// Notification is a side effect written in the same transaction as the
// state change it announces and delivered later, at least once, by a worker
// (never from inside a transaction).
type Notification struct {
	Kind          NotificationKind `json:"kind"`
	AppointmentID int64            `json:"appointmentId"`
	// SuspensionID is set for NotifySuspension: one message per patient and
	// suspension, naming one of the cancelled appointments.
	SuspensionID int64 `json:"suspensionId,omitempty"`
	// Ref tells apart messages of one kind for one appointment: the slot
	// moved to (rescheduled), the offset in minutes (reminder).
	Ref string `json:"ref,omitempty"`
	// SlotID is set for NotifyOfferDue, which is about a slot.
	SlotID int64 `json:"slotId,omitempty"`
	// RefundID is set for NotifyRefundDue and NotifyRefunded.
	RefundID int64 `json:"refundId,omitempty"`
}

// Payment is a payment provider's confirmation for a HELD appointment,
// identified by the provider's trade number.
type Payment struct {
	TradeNo       string    `json:"tradeNo"`
	AppointmentID int64     `json:"appointmentId"`
	AmountCents   int64     `json:"amount"`
	ReceivedAt    time.Time `json:"receivedAt"`
	// Outcome is what the payment did: PaymentApplied, or PaymentRefund when
	// it arrived too late or did not match and must be paid back.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// RefundedAt and RefundRef are set once staff have paid a needs-refund
	// payment back (Service.MarkRefunded), with the provider's reference.
	RefundedAt *time.Time `json:"refundedAt,omitempty"`
	RefundRef  string     `json:"refundRef,omitempty"`
}

// Payment outcomes.
const (
	PaymentApplied = "applied"
	PaymentRefund  = "needs-refund"
)

// PaymentResult answers a payment confirmation.
type PaymentResult struct {
	Payment     Payment
	Appointment Appointment
	// Duplicate says the trade number was already recorded: nothing changed
	// and Payment is the recorded one.
	Duplicate bool
}

// Suspension closes a doctor's slots starting in [From, To), cancelling
// their active appointments.
type Suspension struct {
	ID int64 `json:"id"`
	// Scope is ScopeDoctor (DoctorID), ScopeDepartment (DepartmentID) or
	// ScopeClinic: a closure of a department or the whole clinic.
	Scope        string `json:"scope"`
	DoctorID     int64  `json:"doctorId,omitempty"`
	DepartmentID int64  `json:"departmentId,omitempty"`
	// LiftedAt is when it was lifted (its slots reopened), nil while it
	// stands.
	LiftedAt  *time.Time `json:"liftedAt,omitempty"`
	From      time.Time  `json:"from"`
	To        time.Time  `json:"to"`
	Reason    string     `json:"reason"`
	CreatedAt time.Time  `json:"createdAt"`
}

// SuspensionResult is what a suspension did. Repeating a suspension (same
// doctor, from and to) returns the first one with Existing set and changes
// nothing.
type SuspensionResult struct {
	Suspension   Suspension `json:"suspension"`
	Existing     bool       `json:"existing"`
	SlotsClosed  int        `json:"slotsClosed"`
	Cancelled    int        `json:"appointmentsCancelled"`
	PatientsTold int        `json:"patientsNotified"`
}

// CounterMismatch is a slot whose counter disagrees with its rows.
type CounterMismatch struct {
	SlotID      int64 `json:"slotId"`
	Capacity    int   `json:"capacity"`
	BookedCount int   `json:"bookedCount"`
	Active      int   `json:"activeAppointments"`
}

// DuplicateActive is a patient holding more than one active place in a slot.
type DuplicateActive struct {
	SlotID    int64 `json:"slotId"`
	PatientID int64 `json:"patientId"`
	Count     int   `json:"count"`
}

// CounterRepair is one counter set from its rows by a repair.
type CounterRepair struct {
	SlotID int64 `json:"slotId"`
	From   int   `json:"from"`
	To     int   `json:"to"`
}

// Reconciliation is the invariant report (docs/reliability.md).
type Reconciliation struct {
	CheckedAt         time.Time         `json:"checkedAt"`
	CounterMismatches []CounterMismatch `json:"counterMismatches"`
	DuplicateActives  []DuplicateActive `json:"duplicateActives"`
	// StaleHolds are HELD appointments past their deadline that the expiry
	// job has not yet expired.
	StaleHolds []Appointment `json:"staleHolds"`
	// RefundsNeeded are payments that arrived too late or did not match.
	RefundsNeeded []Payment `json:"refundsNeeded"`
	// PaymentConflicts are callbacks that reused a recorded trade number
	// for another appointment or amount, oldest first.
	PaymentConflicts []PaymentConflict `json:"paymentConflicts"`
	// Repaired lists the counters a repair changed (empty without repair).
	Repaired []CounterRepair `json:"repaired"`
	// RoundQuotaMismatches are round quota rows whose used count differs
	// from the patient's active appointments in the round.
	RoundQuotaMismatches []RoundQuotaMismatch `json:"roundQuotaMismatches"`
	// UnrefundedCancels are paid appointments given back (CANCELLED)
	// whose applied payment has no refund record: the refund was lost.
	UnrefundedCancels []Appointment `json:"unrefundedCancels"`
	// BrokenSeries are dose series booked that are not whole: a dose's
	// link missing, or a later dose still active after an earlier one was
	// cancelled (BrokenSeriesSQL). Its ids are series bookings'.
	BrokenSeries []int64 `json:"brokenSeries"`
	// WalkIns counts the active walk-ins (walkin.go), counted apart: each
	// is one of its slot's booked places, which may exceed the capacity by
	// the slot's walk-in allowance and no more.
	WalkIns int `json:"walkIns"`
}

// NewReconciliation is an empty report checked at now: every list empty,
// never nil, so that clients iterate them without a check.
func NewReconciliation(now time.Time) Reconciliation {
	return Reconciliation{CheckedAt: now, CounterMismatches: []CounterMismatch{}, DuplicateActives: []DuplicateActive{},
		StaleHolds: []Appointment{}, RefundsNeeded: []Payment{}, PaymentConflicts: []PaymentConflict{},
		Repaired: []CounterRepair{}, RoundQuotaMismatches: []RoundQuotaMismatch{}, UnrefundedCancels: []Appointment{},
		BrokenSeries: []int64{}}
}

// RepairCounter decides the repair of a slot's counter from its rows,
// recounted under the slot's lock: set it to the active rows, unless it
// agrees already (fixed meanwhile) or the rows exceed limit, the capacity
// plus the slot's walk-in allowance (an overfull slot is reported, never
// "repaired" above it).
func RepairCounter(slotID int64, limit, booked, active int) (CounterRepair, bool) {
	if booked == active || active > limit {
		return CounterRepair{}, false
	}
	return CounterRepair{SlotID: slotID, From: booked, To: active}, true
}

// Violations counts the invariant breaches the report found.
func (r Reconciliation) Violations() int {
	return len(r.CounterMismatches) + len(r.DuplicateActives) + len(r.RoundQuotaMismatches) + len(r.UnrefundedCancels) + len(r.BrokenSeries)
}

// Pending counts the work the report found that breaks no invariant but
// needs doing: stale holds to expire, refunds to pay, payment conflicts to
// settle with the provider.
func (r Reconciliation) Pending() int {
	return len(r.StaleHolds) + len(r.RefundsNeeded) + len(r.PaymentConflicts)
}

// Sound reports whether every invariant holds (pending work aside).
func (r Reconciliation) Sound() bool { return r.Violations() == 0 }

// Clean reports whether nothing needs doing: no breach and no pending work.
func (r Reconciliation) Clean() bool { return r.Violations() == 0 && r.Pending() == 0 }
