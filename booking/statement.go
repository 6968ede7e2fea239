package booking

import (
	"sort"
	"strconv"
	"time"
)

// StatementLine is one movement of money of a day: a payment received or
// a refund paid back, as the payment provider's statement lists it or as
// slotd recorded it. Amounts are in the clinic's minor units.
type StatementLine struct {
	Kind string `json:"kind"`
	// TradeNo is the payment's (for a refund, the refunded payment's).
	TradeNo string `json:"tradeNo"`
	// RefundID is slotd's refund id and RefundRef the provider's, for a
	// refund, when known.
	RefundID      int64     `json:"refundId,omitempty"`
	RefundRef     string    `json:"refundRef,omitempty"`
	AppointmentID int64     `json:"appointmentId,omitempty"`
	Amount        int64     `json:"amount"`
	At            time.Time `json:"at"`
}

// The kinds of StatementLine.
const (
	StatementPayment = "payment"
	StatementRefund  = "refund"
)

// The kinds of StatementDifference, the names slotd_statement_differences
// uses: the provider took or paid back money slotd has no record of
// (unknown), slotd recorded money the provider's statement does not have
// (missing), or both have it for different amounts.
const (
	StatementUnknown = "statement_unknown"
	StatementMissing = "statement_missing"
	StatementAmount  = "statement_amount"
)

// StatementKinds lists the difference kinds, for the metrics.
var StatementKinds = []string{StatementUnknown, StatementMissing, StatementAmount}

// MaxStatementLines bounds a statement read (a day of a clinic's
// payments is far fewer).
const MaxStatementLines = 100_000

// StatementMargin is how long after the provider's moment slotd may record
// it (a notification's delay): a payment on the provider's day is looked
// for among slotd's records up to this after the day's end, and slotd's
// records in the first StatementMargin of a day may be on the previous
// day's statement, so they are not reported missing from this one.
const StatementMargin = 10 * time.Minute

// StatementDifference is one disagreement: Line is the provider's (unknown,
// amount) or slotd's (missing); Recorded and Provider the two amounts.
type StatementDifference struct {
	Kind     string        `json:"kind"`
	Line     StatementLine `json:"line"`
	Recorded int64         `json:"recorded"`
	Provider int64         `json:"provider"`
}

// StatementCheck is a day's reconciliation against the provider: the day
// [From, To) in the clinic's zone, the provider's lines and slotd's, and
// their differences. Source is "provider", or "records" for a provider
// without statements (the signed gateway, the demo's), whose day is read
// from slotd's own records and so always agrees.
type StatementCheck struct {
	Day         string                `json:"day"`
	From        time.Time             `json:"from"`
	To          time.Time             `json:"to"`
	Provider    string                `json:"provider"`
	Source      string                `json:"source"`
	Lines       int                   `json:"lines"`
	Recorded    int                   `json:"recorded"`
	Differences []StatementDifference `json:"differences"`
	CheckedAt   time.Time             `json:"checkedAt"`
}

// Kinds counts the differences by kind (every kind, 0 when none).
func (c StatementCheck) Kinds() map[string]int {
	out := make(map[string]int, len(StatementKinds))
	for _, k := range StatementKinds {
		out[k] = 0
	}
	for _, d := range c.Differences {
		out[d.Kind]++
	}
	return out
}

// statementKey identifies a line on both sides: a payment by its trade
// number, a refund by slotd's refund id, or else the provider's refund id.
func statementKey(l StatementLine) string {
	if l.Kind == StatementRefund {
		if l.RefundID > 0 {
			return "r:" + strconv.FormatInt(l.RefundID, 10)
		}
		return "R:" + l.RefundRef
	}
	return "p:" + l.TradeNo
}

// MatchStatement compares the provider's lines of the day [from, to) with
// slotd's recorded ones (read from StatementMargin before from to
// StatementMargin after to): each provider line must match one record of
// the same amount (else unknown or amount), and each record of the day,
// past its first StatementMargin, one provider line (else missing). A
// refund is matched by slotd's refund id, or by the provider's refund id
// when the provider's line does not carry ours.
func MatchStatement(from, to time.Time, provider, recorded []StatementLine) []StatementDifference {
	ours := make(map[string]StatementLine, 2*len(recorded))
	for _, r := range recorded {
		ours[statementKey(r)] = r
		if r.Kind == StatementRefund && r.RefundRef != "" {
			ours["R:"+r.RefundRef] = r
		}
	}
	seen := map[string]bool{}
	out := []StatementDifference{}
	for _, p := range provider {
		r, ok := ours[statementKey(p)]
		switch {
		case !ok:
			out = append(out, StatementDifference{Kind: StatementUnknown, Line: p, Provider: p.Amount})
			continue
		case r.Amount != p.Amount:
			out = append(out, StatementDifference{Kind: StatementAmount, Line: p, Recorded: r.Amount, Provider: p.Amount})
		}
		seen[statementKey(r)] = true
	}
	for _, r := range recorded {
		if seen[statementKey(r)] || r.At.Before(from.Add(StatementMargin)) || !r.At.Before(to) {
			continue
		}
		out = append(out, StatementDifference{Kind: StatementMissing, Line: r, Recorded: r.Amount})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line.At.Before(out[j].Line.At) })
	return out
}
