package booking

import (
	"context"
	"time"
)

// ReconcileRun is the verdict of one scheduled reconciliation, kept for the
// dashboard and the metrics.
type ReconcileRun struct {
	CheckedAt  time.Time `json:"checkedAt"`
	Violations int       `json:"violations"`
	Pending    int       `json:"pending"`
	// Kinds counts the findings by kind (Reconciliation.Kinds).
	Kinds map[string]int `json:"kinds,omitempty"`
}

// KeptReconcileRuns is how many verdicts a store keeps (a week of the
// default 5-minute schedule); older ones are deleted as new ones arrive.
const KeptReconcileRuns = 2016

// Kinds counts what the report found by kind, the names the metric
// slotd_reconciliation_issues{kind} uses; ViolationKind tells a breach
// from pending work.
func (r Reconciliation) Kinds() map[string]int {
	return map[string]int{
		"counter_mismatch":     len(r.CounterMismatches),
		"duplicate_active":     len(r.DuplicateActives),
		"round_quota_mismatch": len(r.RoundQuotaMismatches),
		"broken_series":        len(r.BrokenSeries),
		"stale_hold":           len(r.StaleHolds),
		"refund_needed":        len(r.RefundsNeeded),
		"payment_conflict":     len(r.PaymentConflicts),
		"refund_missing":       len(r.UnrefundedCancels),
	}
}

// ViolationKind reports whether findings of kind break an invariant
// (Violations) rather than wait for an action (Pending).
func ViolationKind(kind string) bool {
	switch kind {
	case "counter_mismatch", "duplicate_active", "round_quota_mismatch", "refund_missing", "broken_series":
		return true
	}
	return false
}

// MaxRefundRefLen bounds a provider's refund reference.
const MaxRefundRefLen = 64

// RefundDecision decides the settlement of payment p with reference ref:
// noop when it is already settled with ref, an error when it needs no
// refund or was settled with another reference.
func RefundDecision(p Payment, ref string) (noop bool, err error) {
	switch {
	case p.Outcome != PaymentRefund:
		return false, Errorf(CodeInvalidTransition, "payment %s was applied: it needs no refund", p.TradeNo)
	case p.RefundedAt != nil && p.RefundRef == ref:
		return true, nil
	case p.RefundedAt != nil:
		return false, Errorf(CodeInvalidTransition, "payment %s was already refunded with another reference", p.TradeNo)
	}
	return false, nil
}

// refundState is what the audit log keeps of a payment.
type refundState struct {
	Outcome   string `json:"outcome"`
	Refunded  bool   `json:"refunded"`
	RefundRef string `json:"refundRef,omitempty"`
}

// AuditRefund is the entry of payment p (id: its row id) being settled.
func AuditRefund(ctx context.Context, now time.Time, id int64, p Payment) AuditEntry {
	return Audit(ctx, now, AuditChange{Entity: EntityPayment, ID: id, Action: "refund",
		Before: refundState{Outcome: p.Outcome}, After: refundState{Outcome: p.Outcome, Refunded: true, RefundRef: p.RefundRef}})
}
