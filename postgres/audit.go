package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// writeAudit is the one writer of the audit log: every change calls it in
// its own transaction with the entries booking built for it, so a row
// exists exactly when the change committed.
func writeAudit(ctx context.Context, tx pgx.Tx, es ...booking.AuditEntry) error {
	if len(es) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	queueAudit(b, es...)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("postgres: audit: %w", err)
	}
	return nil
}

// queueAudit queues the one statement that writes es (always one, so that
// a pipeline's results keep their places; with no entries it inserts
// nothing).
func queueAudit(b *pgx.Batch, es ...booking.AuditEntry) {
	n := len(es)
	at, roles, ids, ents, eids, acts, bef, aft, pats :=
		make([]time.Time, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n),
		make([]string, n), make([]*string, n), make([]*string, n), make([]int64, n)
	for i, e := range es {
		at[i], roles[i], ids[i], ents[i], eids[i], acts[i] = e.At, e.ActorRole, e.ActorID, e.Entity, e.EntityID, e.Action
		bef[i], aft[i], pats[i] = nullText(e.Before), nullText(e.After), booking.AuditPatient(e)
	}
	b.Queue(sqlInsertAudit, at, roles, ids, ents, eids, acts, bef, aft, pats)
}

// sqlInsertAudit writes a batch of audit rows, one array per column, and
// once a relay has started (event_cursor has its row) the transaction's id,
// by which the relay reads the rows in commit order (events.go).
const sqlInsertAudit = `INSERT INTO audit_log (at, actor_role, actor_id, entity, entity_id, action, before, after, patient_id, tx)
		SELECT *, (SELECT pg_current_xact_id() FROM event_cursor)
		FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::jsonb[], $8::jsonb[], $9::bigint[])`

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// audited runs fn in a transaction and writes the entries it returns there.
func (s *Store) audited(ctx context.Context, fn func(tx pgx.Tx) ([]booking.AuditEntry, error)) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		es, err := fn(tx)
		if err != nil {
			return err
		}
		return writeAudit(ctx, tx, es...)
	})
}

// ListAudit lists the audit entries passing f, newest first.
func (s *Store) ListAudit(ctx context.Context, f booking.AuditFilter) ([]booking.AuditEntry, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.Entity != "" {
		add("entity = $%d", f.Entity)
	}
	if f.EntityID != 0 {
		add("entity_id = $%d", f.EntityID)
	}
	if f.ActorRole != "" {
		add("actor_role = $%d", f.ActorRole)
	}
	if f.ActorID != "" {
		add("actor_id = $%d", f.ActorID)
	}
	if !f.From.IsZero() {
		add("at >= $%d", f.From)
	}
	if !f.To.IsZero() {
		add("at < $%d", f.To)
	}
	if f.PatientID != 0 {
		add("patient_id = $%d", f.PatientID)
	}
	if f.BeforeID != 0 {
		add("id < $%d", f.BeforeID)
	}
	q := `SELECT id, at, actor_role, actor_id, entity, entity_id, action, COALESCE(before::text, ''), COALESCE(after::text, '') FROM audit_log`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, f.Limit)
	q += fmt.Sprintf(" ORDER BY id DESC LIMIT $%d", len(args))
	rows, _ := s.pool.Query(ctx, q, args...)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.AuditEntry, error) {
		var e booking.AuditEntry
		err := r.Scan(&e.ID, &e.At, &e.ActorRole, &e.ActorID, &e.Entity, &e.EntityID, &e.Action, &e.Before, &e.After)
		e.At = e.At.UTC()
		return e, err
	})
	return out, translate(err, "")
}

// MarkRefunded settles a needs-refund payment under its row's lock.
func (s *Store) MarkRefunded(ctx context.Context, tradeNo, ref string, now time.Time) (booking.Payment, error) {
	now = now.UTC().Truncate(time.Microsecond)
	var out booking.Payment
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var id int64
		var p booking.Payment
		var refRef *string
		err := tx.QueryRow(ctx, `SELECT id, `+paymentColumns+`, refunded_at, refund_ref FROM payments WHERE trade_no = $1 FOR UPDATE`, tradeNo).
			Scan(&id, &p.TradeNo, &p.AppointmentID, &p.AmountCents, &p.ReceivedAt, &p.Outcome, &p.Reason, &p.RefundedAt, &refRef)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, booking.NotFound("payment")
		} else if err != nil {
			return nil, err
		}
		p.ReceivedAt = p.ReceivedAt.UTC()
		if refRef != nil {
			p.RefundRef = *refRef
		}
		out = p
		if noop, err := booking.RefundDecision(p, ref); noop || err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, `UPDATE payments SET refunded_at = $2, refund_ref = $3 WHERE id = $1`, id, now, ref); err != nil {
			return nil, err
		}
		// Paid back outside slotd: its refund is settled, so the job asks
		// the provider for nothing more.
		if _, err := tx.Exec(ctx, `UPDATE refunds SET state = 'succeeded', provider_ref = $2, failure = NULL, settled_at = $3, updated_at = $3
			WHERE payment_id = $1 AND state <> 'succeeded'`, id, ref, now); err != nil {
			return nil, err
		}
		out.RefundedAt, out.RefundRef = &now, ref
		return []booking.AuditEntry{booking.AuditRefund(ctx, now, id, out)}, nil
	})
	return out, translate(err, "")
}

// RecordReconcileRun keeps a scheduled reconciliation's verdict.
func (s *Store) RecordReconcileRun(ctx context.Context, r booking.ReconcileRun) error {
	kinds, _ := json.Marshal(r.Kinds)
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO reconcile_runs (checked_at, violations, pending, kinds) VALUES ($1, $2, $3, $4)`,
		r.CheckedAt, r.Violations, r.Pending, kinds)
	b.Queue(`DELETE FROM reconcile_runs WHERE id <= (SELECT max(id) FROM reconcile_runs) - $1`, booking.KeptReconcileRuns)
	return translate(s.pool.SendBatch(ctx, b).Close(), "")
}

// LastReconcileRun returns the newest verdict.
func (s *Store) LastReconcileRun(ctx context.Context) (booking.ReconcileRun, error) {
	var r booking.ReconcileRun
	var kinds []byte
	err := s.pool.QueryRow(ctx, `SELECT checked_at, violations, pending, kinds FROM reconcile_runs ORDER BY id DESC LIMIT 1`).
		Scan(&r.CheckedAt, &r.Violations, &r.Pending, &kinds)
	r.CheckedAt = r.CheckedAt.UTC()
	if err == nil && len(kinds) > 0 {
		err = json.Unmarshal(kinds, &r.Kinds)
	}
	return r, translate(err, "reconciliation run")
}

// createAudited runs one INSERT ... RETURNING and its audit row in one
// transaction. after keeps ids only (a created patient's name and contacts
// stay out of the log).
func createAudited[T any](s *Store, ctx context.Context, entity string, scan func(pgx.Row) (T, error),
	audit func(T) (int64, any), q string, args ...any) (T, error) {
	var out T
	err := s.audited(ctx, func(tx pgx.Tx) ([]booking.AuditEntry, error) {
		var err error
		if out, err = scan(tx.QueryRow(ctx, q, args...)); err != nil {
			return nil, err
		}
		id, after := audit(out)
		return []booking.AuditEntry{booking.Audit(ctx, time.Now(), booking.AuditChange{Entity: entity, ID: id, Action: "create", After: after})}, nil
	})
	return out, err
}
