package booking

import (
	"testing"
	"time"
)

// TestMatchStatement: every provider line matches one record of the same
// amount, every record of the day (past its first margin) one provider
// line; refunds match by slotd's id or the provider's.
func TestMatchStatement(t *testing.T) {
	from := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	to := from.Add(24 * time.Hour)
	at := func(h float64) time.Time { return from.Add(time.Duration(h * float64(time.Hour))) }
	pay := func(no string, amount int64, h float64) StatementLine {
		return StatementLine{Kind: StatementPayment, TradeNo: no, Amount: amount, At: at(h)}
	}
	ours := []StatementLine{
		pay("T1", 2000, 1), pay("T2", 2000, 2), pay("T3", 2000, 3),
		{Kind: StatementRefund, TradeNo: "T1", RefundID: 7, RefundRef: "re_7", Amount: 1000, At: at(4)},
		{Kind: StatementRefund, TradeNo: "T2", RefundID: 8, RefundRef: "re_8", Amount: 2000, At: at(5)},
		pay("EARLY", 2000, 0.05), // in the first margin: maybe on yesterday's statement
		pay("LATE", 2000, 24.05), // recorded after midnight, paid before it
	}
	theirs := []StatementLine{
		pay("T1", 2000, 1), pay("T2", 2500, 2), // T3 missing, T2's amount differs
		{Kind: StatementRefund, TradeNo: "T1", RefundID: 7, Amount: 1000, At: at(4)},
		{Kind: StatementRefund, TradeNo: "T2", RefundRef: "re_8", Amount: 2000, At: at(5)}, // by the provider's id
		pay("LATE", 2000, 23.99),
		pay("STRANGER", 900, 6),
		{Kind: StatementRefund, TradeNo: "T3", RefundRef: "re_x", Amount: 100, At: at(7)},
	}
	got := MatchStatement(from, to, theirs, ours)
	want := []StatementDifference{
		{Kind: StatementAmount, Line: theirs[1], Recorded: 2000, Provider: 2500},
		{Kind: StatementMissing, Line: ours[2], Recorded: 2000},
		{Kind: StatementUnknown, Line: theirs[5], Provider: 900},
		{Kind: StatementUnknown, Line: theirs[6], Provider: 100},
	}
	if len(got) != len(want) {
		t.Fatalf("differences %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("difference %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	c := StatementCheck{Differences: got}
	if k := c.Kinds(); k[StatementUnknown] != 2 || k[StatementMissing] != 1 || k[StatementAmount] != 1 {
		t.Fatalf("kinds %v", k)
	}
	if d := MatchStatement(from, to, ours[:5], ours[:5]); len(d) != 0 {
		t.Fatalf("the same lines differ: %+v", d)
	}
}
