package httpapi

import (
	"testing"

	"github.com/slotd/slotd/booking"
)

// TestPaymentConflict: a callback reusing a known tradeNo is
// answered 200 only when it is the same payment. With another appointmentId
// or another amount it gets 409 payment-conflict, the provider is not told
// it succeeded, nothing else changes, and reconciliation lists it.
func TestPaymentConflict(t *testing.T) {
	e := newEnv(t, withPaymentSecret(paymentSecret))
	f := e.fixture()
	a := e.hold(f, 2500)
	b := e.hold(f, 2500)
	e.do(e.callback(paymentSecret, payment("T-1", a.ID, 2500))).expect(t, 200)

	var ans paymentAnswer
	e.do(e.callback(paymentSecret, payment("T-1", a.ID, 2500))).expect(t, 200).decode(t, &ans)
	if !ans.Duplicate || ans.Appointment.ID != a.ID {
		t.Fatalf("the same payment replayed: %+v", ans)
	}

	e.do(e.callback(paymentSecret, payment("T-1", b.ID, 2500))).expect(t, 409, booking.CodePaymentConflict)
	e.do(e.callback(paymentSecret, payment("T-1", a.ID, 100))).expect(t, 409, booking.CodePaymentConflict)
	got, err := e.db.GetAppointment(t.Context(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != booking.StatusHeld {
		t.Fatalf("appointment b is %s after a conflicting callback, want HELD", got.Status)
	}

	var rep reconciliationAnswer
	e.do(call{method: "GET", path: "/api/admin/reconciliation", token: e.admin}).expect(t, 200).decode(t, &rep)
	if len(rep.PaymentConflicts) != 2 || rep.PaymentConflicts[0].AppointmentID != b.ID ||
		rep.PaymentConflicts[1].AmountCents != 100 || rep.Clean || rep.Pending != 2 || rep.Violations != 0 {
		t.Fatalf("reconciliation: %+v", rep)
	}
}
