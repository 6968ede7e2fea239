package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// sqlStatementRecords is the money slotd recorded in [$1, $2): payments
// received (every outcome: money taken, applied or to be refunded) and
// refunds paid back (succeeded, with something paid).
const sqlStatementRecords = `SELECT 'payment', trade_no, 0::bigint, '', appointment_id, amount_cents, received_at
	FROM payments WHERE received_at >= $1 AND received_at < $2
	UNION ALL
	SELECT 'refund', p.trade_no, r.id, coalesce(r.provider_ref, ''), r.appointment_id, r.amount_cents, r.settled_at
	FROM refunds r JOIN payments p ON p.id = r.payment_id
	WHERE r.state = 'succeeded' AND r.amount_cents > 0 AND r.settled_at >= $1 AND r.settled_at < $2
	ORDER BY 7 LIMIT $3`

// StatementRecords lists the money slotd recorded in [from, to), at most
// booking.MaxStatementLines lines, oldest first.
func (s *Store) StatementRecords(ctx context.Context, from, to time.Time) ([]booking.StatementLine, error) {
	rows, _ := s.pool.Query(ctx, sqlStatementRecords, from, to, booking.MaxStatementLines)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.StatementLine, error) {
		var l booking.StatementLine
		err := r.Scan(&l.Kind, &l.TradeNo, &l.RefundID, &l.RefundRef, &l.AppointmentID, &l.Amount, &l.At)
		l.At = l.At.UTC()
		return l, err
	})
	return out, translate(err, "")
}
