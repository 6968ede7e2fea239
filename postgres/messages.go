package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// The messages methods implement booking.MessageStore: delivery records,
// moved as booking.ApplyMessageAttempt and ApplyMessageReport decide.

// A sign-up code's message has no patient (NULL), read as 0.
const messageCols = `id, coalesce(patient_id, 0), kind, channel, state, coalesce(provider_id, ''), reason, attempts, created_at, updated_at`

func scanMessage(row pgx.Row) (booking.Message, error) {
	var m booking.Message
	err := row.Scan(&m.ID, &m.PatientID, &m.Kind, &m.Channel, &m.State, &m.ProviderID, &m.Reason, &m.Attempts, &m.CreatedAt, &m.UpdatedAt)
	m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return m, err
}

// RecordMessage writes one attempt of a.Key's message, under the key's
// lock so that two attempts of one message (two instances) count both.
func (s *Store) RecordMessage(ctx context.Context, a booking.MessageAttempt) (booking.Message, error) {
	var out booking.Message
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('message:' || $1, 0))`, a.Key); err != nil {
			return err
		}
		cur, err := scanMessage(tx.QueryRow(ctx, `SELECT `+messageCols+` FROM messages WHERE msg_key = $1`, a.Key))
		found := err == nil
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		m := booking.ApplyMessageAttempt(cur, found, a)
		out, err = scanMessage(tx.QueryRow(ctx,
			`INSERT INTO messages (msg_key, patient_id, kind, channel, state, provider_id, reason, attempts, created_at, updated_at)
			 VALUES ($1, nullif($2::bigint, 0), $3, $4, $5, nullif($6, ''), $7, $8, $9, $10)
			 ON CONFLICT (msg_key) DO UPDATE SET channel = $4, state = $5, provider_id = nullif($6, ''), reason = $7,
			     attempts = $8, updated_at = $10
			 RETURNING `+messageCols,
			a.Key, m.PatientID, m.Kind, m.Channel, m.State, m.ProviderID, m.Reason, m.Attempts, m.CreatedAt, m.UpdatedAt))
		return err
	})
	if constraintOf(err) == "messages_patient_id_fkey" {
		return booking.Message{}, booking.NotFound("patient")
	}
	return out, translate(err, "")
}

// ReportMessage applies a provider's report to its message.
func (s *Store) ReportMessage(ctx context.Context, r booking.MessageReport) (booking.Message, bool, error) {
	var out booking.Message
	var changed bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanMessage(tx.QueryRow(ctx, `SELECT `+messageCols+` FROM messages WHERE provider_id = $1 FOR UPDATE`, r.ProviderID))
		if errors.Is(err, pgx.ErrNoRows) {
			return booking.NotFound("message")
		}
		if err != nil {
			return err
		}
		m, moved := booking.ApplyMessageReport(cur, r)
		out, changed = m, moved
		if !changed {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE messages SET state = $2, reason = $3, updated_at = $4 WHERE id = $1`,
			m.ID, m.State, m.Reason, m.UpdatedAt)
		return err
	})
	if err != nil {
		return booking.Message{}, false, translate(err, "")
	}
	return out, changed, nil
}

// PatientMessages lists a patient's messages, newest first.
func (s *Store) PatientMessages(ctx context.Context, patientID int64, p booking.Page) ([]booking.Message, error) {
	rows, _ := s.pool.Query(ctx,
		`SELECT `+messageCols+` FROM messages WHERE patient_id = $1 AND ($2::bigint = 0 OR id < $2)
		 ORDER BY id DESC LIMIT NULLIF($3, 0)`, patientID, p.After, p.Limit)
	ms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Message, error) { return scanMessage(r) })
	if ms == nil {
		ms = []booking.Message{}
	}
	return ms, translate(err, "")
}

// MessageStates reads the states of keys' messages.
func (s *Store) MessageStates(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT msg_key, state FROM messages WHERE msg_key = ANY($1)`, keys)
	var k, st string
	_, err := pgx.ForEachRow(rows, []any{&k, &st}, func() error { out[k] = st; return nil })
	return out, translate(err, "")
}

// ClaimMessage inserts c's message as queued unless its key has a record,
// and returns the record's state, in one statement. The outer SELECT
// reads the statement's snapshot: a claim inserted by a transaction not
// yet committed at its start is seen by neither branch, and the job is
// retried rather than guessing.
func (s *Store) ClaimMessage(ctx context.Context, c booking.MessageClaim) (string, error) {
	var state string
	err := s.pool.QueryRow(ctx,
		`WITH ins AS (
		     INSERT INTO messages (msg_key, patient_id, kind, channel, state, reason, attempts, created_at, updated_at)
		     VALUES ($1, $2, $3, 'none', 'queued', '', 0, $4, $4)
		     ON CONFLICT (msg_key) DO NOTHING RETURNING state)
		 SELECT state FROM ins UNION ALL SELECT state FROM messages WHERE msg_key = $1 LIMIT 1`,
		c.Key, c.PatientID, c.Kind, c.At).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", errors.New("postgres: message claimed by a transaction in flight")
	}
	if constraintOf(err) == "messages_patient_id_fkey" {
		return "", booking.NotFound("patient")
	}
	return state, translate(err, "")
}

// MarkMessage moves a still queued message to m.State. An attempt counts
// once at least: the delivery's own record, when there is one, counted it.
func (s *Store) MarkMessage(ctx context.Context, m booking.MessageMark) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE messages SET state = $2, reason = $3, attempts = greatest(attempts, 1), updated_at = $4
		 WHERE msg_key = $1 AND state = 'queued'`, m.Key, m.State, m.Reason, m.At)
	return translate(err, "")
}
