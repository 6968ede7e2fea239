package booking

import (
	"testing"
	"time"
)

// The payment decision table, row by row (docs/contracts/lifecycle.md).
func TestDecidePayment(t *testing.T) {
	deadline := t0.Add(15 * time.Minute)
	held := &Appointment{ID: 1, Status: StatusHeld, HoldExpiresAt: &deadline}
	noDeadline := &Appointment{ID: 1, Status: StatusHeld}
	p := Payment{TradeNo: "T", AppointmentID: 1, AmountCents: 2500}
	for name, tc := range map[string]struct {
		recorded *Payment
		a        *Appointment
		amount   int64
		at       time.Time
		to       Status
		outcome  string
		code     Code
	}{
		"applied":             {nil, held, 2500, t0, StatusBooked, PaymentApplied, ""},
		"held without a hold": {nil, noDeadline, 2500, t0, StatusBooked, PaymentApplied, ""},
		"wrong amount":        {nil, held, 100, t0, "", PaymentRefund, CodePaymentRejected},
		"at the deadline":     {nil, held, 2500, deadline, StatusExpired, PaymentRefund, CodePaymentRejected},
		"late, wrong amount":  {nil, held, 100, deadline, StatusExpired, PaymentRefund, CodePaymentRejected},
		"expired":             {nil, &Appointment{ID: 1, Status: StatusExpired}, 2500, t0, "", PaymentRefund, CodePaymentRejected},
		"cancelled":           {nil, &Appointment{ID: 1, Status: StatusCancelled}, 2500, t0, "", PaymentRefund, CodePaymentRejected},
		"paid twice":          {nil, &Appointment{ID: 1, Status: StatusBooked}, 2500, t0, "", PaymentRefund, CodePaymentRejected},
		"completed":           {nil, &Appointment{ID: 1, Status: StatusCompleted}, 2500, t0, "", PaymentRefund, CodePaymentRejected},
		"conflict: amount":    {&Payment{TradeNo: "T", AppointmentID: 1, AmountCents: 2500}, held, 100, t0, "", "", CodePaymentConflict},
		"conflict: other":     {&Payment{TradeNo: "T", AppointmentID: 2, AmountCents: 2500}, held, 2500, t0, "", "", CodePaymentConflict},
	} {
		t.Run(name, func(t *testing.T) {
			q := p
			q.AmountCents = tc.amount
			d, err := DecidePayment(q, PaymentReads{Recorded: tc.recorded, Appointment: tc.a, FeeCents: 2500}, tc.at)
			if err != nil {
				t.Fatal(err)
			}
			if d.To != tc.to || d.Record.Outcome != tc.outcome || (d.Err == nil) != (tc.code == "") ||
				(d.Err != nil && d.Err.Code != tc.code) || d.Conflict != (tc.code == CodePaymentConflict) || d.Duplicate {
				t.Fatalf("decision %+v", d)
			}
			if d.Record.Outcome == PaymentRefund && d.Record.Reason == "" {
				t.Fatal("a refund without a reason")
			}
		})
	}
	d, err := DecidePayment(p, PaymentReads{Recorded: &Payment{TradeNo: "T", AppointmentID: 1, AmountCents: 2500}, Appointment: held, FeeCents: 2500}, t0)
	if err != nil || !d.Duplicate || d.Conflict || d.Err != nil {
		t.Fatalf("same payment again: %+v, %v", d, err)
	}
	if _, err := DecidePayment(p, PaymentReads{}, t0); ErrorCode(err) != CodeNotFound {
		t.Fatalf("no appointment: %v", err)
	}
}
