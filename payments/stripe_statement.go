package payments

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v82"

	"github.com/slotd/slotd/booking"
)

// Statement lists the balance transactions created in [from, to), their
// sources expanded: a charge (type charge or payment) is a payment of its
// PaymentIntent, a refund (refund, payment_refund) slotd's refund named in
// its metadata. Fees, payouts and the rest are not slotd's.
func (p *Stripe) Statement(ctx context.Context, from, to time.Time) ([]booking.StatementLine, error) {
	params := &stripe.BalanceTransactionListParams{CreatedRange: &stripe.RangeQueryParams{GreaterThanOrEqual: from.Unix(), LesserThan: to.Unix()}}
	params.Limit = stripe.Int64(100)
	params.AddExpand("data.source")
	out := []booking.StatementLine{}
	for bt, err := range p.client.V1BalanceTransactions.List(ctx, params) {
		if err != nil {
			return nil, fmt.Errorf("payments: stripe balance transactions: %w", err)
		}
		if len(out) >= booking.MaxStatementLines {
			return nil, fmt.Errorf("payments: stripe balance transactions: more than %d in a day", booking.MaxStatementLines)
		}
		if bt.Source == nil {
			continue
		}
		at := time.Unix(bt.Created, 0).UTC()
		switch {
		case bt.Source.Charge != nil && bt.Source.Charge.PaymentIntent != nil:
			out = append(out, booking.StatementLine{Kind: booking.StatementPayment, TradeNo: bt.Source.Charge.PaymentIntent.ID, Amount: bt.Amount, At: at})
		case bt.Source.Refund != nil:
			r := bt.Source.Refund
			id, _ := strconv.ParseInt(r.Metadata[metaRefund], 10, 64)
			l := booking.StatementLine{Kind: booking.StatementRefund, RefundID: id, RefundRef: r.ID, Amount: -bt.Amount, At: at}
			if r.PaymentIntent != nil {
				l.TradeNo = r.PaymentIntent.ID
			}
			out = append(out, l)
		}
	}
	return out, nil
}
