package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
)

// sqlStatementRecords is the money slotd recorded in [?1, ?2): payments
// received (every outcome) and refunds paid back (succeeded, with
// something paid).
const sqlStatementRecords = `SELECT 'payment', trade_no, 0, '', appointment_id, amount_cents, received_at
	FROM payments WHERE received_at >= ?1 AND received_at < ?2
	UNION ALL
	SELECT 'refund', p.trade_no, r.id, coalesce(r.provider_ref, ''), r.appointment_id, r.amount_cents, r.settled_at
	FROM refunds r JOIN payments p ON p.id = r.payment_id
	WHERE r.state = 'succeeded' AND r.amount_cents > 0 AND r.settled_at >= ?1 AND r.settled_at < ?2
	ORDER BY 7 LIMIT ?3`

// StatementRecords lists the money slotd recorded in [from, to), at most
// booking.MaxStatementLines lines, oldest first.
func (s *Store) StatementRecords(ctx context.Context, from, to time.Time) ([]booking.StatementLine, error) {
	out := []booking.StatementLine{}
	err := eachRow(ctx, s.reader, sqlStatementRecords, []any{ts(from), ts(to), booking.MaxStatementLines}, func(rows *sql.Rows) error {
		var l booking.StatementLine
		var at int64
		err := rows.Scan(&l.Kind, &l.TradeNo, &l.RefundID, &l.RefundRef, &l.AppointmentID, &l.Amount, &at)
		l.At = fromTS(at)
		out = append(out, l)
		return err
	})
	return out, mapErr(err, "")
}
