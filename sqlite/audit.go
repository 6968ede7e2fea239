package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slotd/slotd/booking"
)

// writeAudit is the one writer of the audit log: every change calls it in
// its own write transaction with the entries booking built for it. A
// batch's entries go in multi-row INSERTs, one statement per auditRows.
func writeAudit(ctx context.Context, tx *sql.Tx, es ...booking.AuditEntry) error {
	for start := 0; start < len(es); start += auditRows {
		chunk := es[start:min(start+auditRows, len(es))]
		args := make([]any, 0, len(chunk)*9)
		for _, e := range chunk {
			args = append(args, ts(e.At), e.ActorRole, e.ActorID, e.Entity, e.EntityID, e.Action,
				nullText(e.Before), nullText(e.After), booking.AuditPatient(e))
		}
		q := `INSERT INTO audit_log (at, actor_role, actor_id, entity, entity_id, action, before, after, patient_id) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("sqlite: audit: %w", err)
		}
	}
	return nil
}

// auditRows bounds one INSERT's rows: 9 parameters each, under SQLite's
// limit on bound parameters.
const auditRows = 100

// ListAudit lists the audit entries passing f, newest first.
func (s *Store) ListAudit(ctx context.Context, f booking.AuditFilter) ([]booking.AuditEntry, error) {
	var where []string
	var args []any
	add := func(cond string, v any) { where, args = append(where, cond), append(args, v) }
	if f.Entity != "" {
		add("entity = ?", f.Entity)
	}
	if f.EntityID != 0 {
		add("entity_id = ?", f.EntityID)
	}
	if f.ActorRole != "" {
		add("actor_role = ?", f.ActorRole)
	}
	if f.ActorID != "" {
		add("actor_id = ?", f.ActorID)
	}
	if !f.From.IsZero() {
		add("at >= ?", ts(f.From))
	}
	if !f.To.IsZero() {
		add("at < ?", ts(f.To))
	}
	if f.PatientID != 0 {
		add("patient_id = ?", f.PatientID)
	}
	if f.BeforeID != 0 {
		add("id < ?", f.BeforeID)
	}
	q := `SELECT id, at, actor_role, actor_id, entity, entity_id, action, coalesce(before, ''), coalesce(after, '') FROM audit_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC LIMIT ?"
	args = append(args, f.Limit)
	rows, err := s.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.AuditEntry{}
	for rows.Next() {
		var e booking.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.ActorRole, &e.ActorID, &e.Entity, &e.EntityID, &e.Action, &e.Before, &e.After); err != nil {
			return nil, mapErr(err, "")
		}
		e.At = fromTS(at)
		out = append(out, e)
	}
	return out, mapErr(rows.Err(), "")
}

// MarkRefunded settles a needs-refund payment under the write lock; the
// writer keeps refunded_at and refund_ref set together (PostgreSQL's
// payments_refund_check).
func (s *Store) MarkRefunded(ctx context.Context, tradeNo, ref string, now time.Time) (booking.Payment, error) {
	now = micro(now)
	var out booking.Payment
	err := s.write(ctx, func(tx *sql.Tx) error {
		var id int64
		var reason, refRef sql.NullString
		var received int64
		var refunded sql.NullInt64
		p := &out
		err := tx.QueryRowContext(ctx, `SELECT id, trade_no, appointment_id, amount_cents, outcome, reason, received_at, refunded_at, refund_ref
			FROM payments WHERE trade_no = ?`, tradeNo).
			Scan(&id, &p.TradeNo, &p.AppointmentID, &p.AmountCents, &p.Outcome, &reason, &received, &refunded, &refRef)
		if errors.Is(err, sql.ErrNoRows) {
			return booking.NotFound("payment")
		} else if err != nil {
			return err
		}
		p.Reason, p.ReceivedAt, p.RefundRef = reason.String, fromTS(received), refRef.String
		if refunded.Valid {
			t := fromTS(refunded.Int64)
			p.RefundedAt = &t
		}
		if noop, err := booking.RefundDecision(*p, ref); noop || err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE payments SET refunded_at = ?, refund_ref = ? WHERE id = ?`, ts(now), ref, id); err != nil {
			return err
		}
		// Paid back outside slotd: its refund is settled, so the job asks
		// the provider for nothing more.
		if _, err := tx.ExecContext(ctx, `UPDATE refunds SET state = 'succeeded', provider_ref = ?2, failure = NULL, settled_at = ?3, updated_at = ?3
			WHERE payment_id = ?1 AND state <> 'succeeded'`, id, ref, ts(now)); err != nil {
			return err
		}
		p.RefundedAt, p.RefundRef = &now, ref
		return writeAudit(ctx, tx, booking.AuditRefund(ctx, now, id, *p))
	})
	if err != nil {
		return booking.Payment{}, mapErr(err, "payment")
	}
	return out, nil
}

// RecordReconcileRun keeps a scheduled reconciliation's verdict.
func (s *Store) RecordReconcileRun(ctx context.Context, r booking.ReconcileRun) error {
	return mapErr(s.write(ctx, func(tx *sql.Tx) error {
		kinds, _ := json.Marshal(r.Kinds)
		if _, err := tx.ExecContext(ctx, `INSERT INTO reconcile_runs (checked_at, violations, pending, kinds) VALUES (?, ?, ?, ?)`,
			ts(r.CheckedAt), r.Violations, r.Pending, string(kinds)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM reconcile_runs WHERE id <= (SELECT max(id) FROM reconcile_runs) - ?`, booking.KeptReconcileRuns)
		return err
	}), "")
}

// LastReconcileRun returns the newest verdict.
func (s *Store) LastReconcileRun(ctx context.Context) (booking.ReconcileRun, error) {
	var r booking.ReconcileRun
	var at int64
	var kinds sql.NullString
	err := s.reader.QueryRowContext(ctx, `SELECT checked_at, violations, pending, kinds FROM reconcile_runs ORDER BY id DESC LIMIT 1`).
		Scan(&at, &r.Violations, &r.Pending, &kinds)
	if err != nil {
		return r, mapErr(err, "reconciliation run")
	}
	r.CheckedAt = fromTS(at)
	if kinds.Valid {
		if err := json.Unmarshal([]byte(kinds.String), &r.Kinds); err != nil {
			return r, err
		}
	}
	return r, nil
}
