package booking

import (
	"testing"
	"time"
)

func TestRefundAmount(t *testing.T) {
	start := time.Date(2026, 12, 10, 9, 0, 0, 0, time.UTC)
	rule := Policy{RefundFullHours: 24, RefundPartialPercent: 50, RefundPartialHours: 2}
	for _, c := range []struct {
		name   string
		policy Policy
		paid   int64
		reason string
		before time.Duration
		want   int64
	}{
		{"30h before: full", rule, 2000, RefundPatientCancel, 30 * time.Hour, 2000},
		{"exactly 24h before: full", rule, 2000, RefundPatientCancel, 24 * time.Hour, 2000},
		{"10h before: half", rule, 2000, RefundPatientCancel, 10 * time.Hour, 1000},
		{"exactly 2h before: half", rule, 2000, RefundPatientCancel, 2 * time.Hour, 1000},
		{"1h before: none", rule, 2000, RefundPatientCancel, time.Hour, 0},
		{"half of an odd amount rounds down", rule, 1001, RefundPatientCancel, 10 * time.Hour, 500},
		{"no partial band: none under the full window", Policy{RefundFullHours: 24}, 2000, RefundPatientCancel, 10 * time.Hour, 0},
		{"default rule: full until the start", Policy{}, 2000, RefundPatientCancel, time.Minute, 2000},
		{"staff cancel: full at 1h", rule, 2000, RefundStaffCancel, time.Hour, 2000},
		{"suspension: full at 1h", rule, 2000, RefundSuspension, time.Hour, 2000},
		{"closure: full", rule, 2000, RefundClosure, 0, 2000},
		{"erasure: full", rule, 2000, RefundErasure, 0, 2000},
		{"late payment: full", rule, 2000, RefundLatePayment, -time.Hour, 2000},
		{"nothing paid", rule, 0, RefundStaffCancel, 30 * time.Hour, 0},
		{"percent above 100 never pays more than paid", Policy{RefundFullHours: 24, RefundPartialPercent: 150}, 2000, RefundPatientCancel, 10 * time.Hour, 2000},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := RefundAmount(RefundCase{Policy: c.policy, Paid: c.paid, Reason: c.reason, StartAt: start, At: start.Add(-c.before)})
			if got != c.want {
				t.Fatalf("RefundAmount = %d, want %d", got, c.want)
			}
			if got > c.paid || got < 0 {
				t.Fatalf("RefundAmount = %d outside 0..%d", got, c.paid)
			}
		})
	}
}

func TestNewRefundNothingToPaySettlesAtOnce(t *testing.T) {
	now := time.Date(2026, 12, 10, 8, 0, 0, 0, time.UTC)
	r := NewRefund(7, "T1", 3, RefundCase{Policy: Policy{RefundFullHours: 24}, Paid: 1500, Reason: RefundPatientCancel,
		StartAt: now.Add(time.Hour), At: now})
	if r.State != RefundSucceeded || r.AmountCents != 0 || r.SettledAt == nil || r.PaidCents != 1500 {
		t.Fatalf("refund of nothing = %+v, want succeeded at once", r)
	}
	r = NewRefund(7, "T1", 3, RefundCase{Paid: 1500, Reason: RefundStaffCancel, StartAt: now.Add(time.Hour), At: now})
	if r.State != RefundRequested || r.AmountCents != 1500 || r.SettledAt != nil {
		t.Fatalf("staff refund = %+v, want requested in full", r)
	}
}

func TestSettleAndRetryRefund(t *testing.T) {
	now := time.Date(2026, 12, 10, 8, 0, 0, 0, time.UTC)
	r := Refund{ID: 1, State: RefundRequested, AmountCents: 100}
	r, noop := SettleRefund(r, RefundOutcome{ID: 1, Failure: "provider down"}, now)
	if noop || r.State != RefundRequested || r.Attempts != 1 || r.Failure != "provider down" {
		t.Fatalf("failed attempt = %+v", r)
	}
	if _, err := RetryRefund(r, now); ErrorCode(err) != CodeInvalidTransition {
		t.Fatalf("retry of a requested refund: %v, want invalid-transition", err)
	}
	r, _ = SettleRefund(r, RefundOutcome{ID: 1, Failure: "still down", Final: true}, now)
	if r.State != RefundFailed || r.Attempts != 2 {
		t.Fatalf("final failure = %+v", r)
	}
	if _, noop := SettleRefund(r, RefundOutcome{ID: 1, ProviderRef: "x"}, now); !noop {
		t.Fatal("a stale attempt settled a failed refund")
	}
	r, err := RetryRefund(r, now)
	if err != nil || r.State != RefundRequested {
		t.Fatalf("retry = %+v, %v", r, err)
	}
	r, _ = SettleRefund(r, RefundOutcome{ID: 1, ProviderRef: "re_1"}, now)
	if r.State != RefundSucceeded || r.ProviderRef != "re_1" || r.Failure != "" || r.SettledAt == nil || r.Attempts != 3 {
		t.Fatalf("success = %+v", r)
	}
	if _, noop := SettleRefund(r, RefundOutcome{ID: 1, ProviderRef: "re_2"}, now); !noop {
		t.Fatal("a second success changed a succeeded refund")
	}
}

func TestPolicyValidateRefundPercent(t *testing.T) {
	if err := (Policy{RefundPartialPercent: 101}).Validate(); ErrorCode(err) != CodeInvalidRequest {
		t.Fatalf("101%%: %v", err)
	}
	if err := (Policy{RefundPartialPercent: 100, RefundFullHours: 48, RefundPartialHours: 2}).Validate(); err != nil {
		t.Fatal(err)
	}
}
