package postgres

import (
	"context"
	"errors"
	"time"

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

// RecordMessage writes one attempt of a.Key's message, under its row's
// lock so that two attempts of one message (two instances) count both; a
// message not yet recorded (a sign-up code; a job's is claimed first) is
// locked by its key until its row exists.
func (s *Store) RecordMessage(ctx context.Context, a booking.MessageAttempt) (booking.Message, error) {
	var out booking.Message
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		const read = `SELECT ` + messageCols + ` FROM messages WHERE msg_key = $1 FOR UPDATE`
		cur, err := scanMessage(tx.QueryRow(ctx, read, a.Key))
		if errors.Is(err, pgx.ErrNoRows) {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('message:' || $1, 0))`, a.Key); err != nil {
				return err
			}
			cur, err = scanMessage(tx.QueryRow(ctx, read, a.Key))
		}
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

// ClaimMessages inserts each of cs's messages as queued unless its key has
// a record, and returns the records' states, in one statement. The outer
// SELECT reads the statement's snapshot: a claim inserted by a transaction
// not yet committed at its start is seen by neither branch, and its key is
// left out (retried rather than guessed). Inserting in key order keeps two
// jobs claiming the same keys from waiting on each other in a cycle.
func (s *Store) ClaimMessages(ctx context.Context, cs []booking.MessageClaim) (map[string]string, error) {
	out := make(map[string]string, len(cs))
	if len(cs) == 0 {
		return out, nil
	}
	keys, patients, kinds, ats := make([]string, len(cs)), make([]int64, len(cs)), make([]string, len(cs)), make([]time.Time, len(cs))
	for i, c := range cs {
		keys[i], patients[i], kinds[i], ats[i] = c.Key, c.PatientID, c.Kind, c.At
	}
	rows, _ := s.pool.Query(ctx,
		`WITH k AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::timestamptz[]) AS k(msg_key, patient_id, kind, at)),
		 ins AS (
		     INSERT INTO messages (msg_key, patient_id, kind, channel, state, reason, attempts, created_at, updated_at)
		     SELECT msg_key, patient_id, kind, 'none', 'queued', '', 0, at, at FROM k ORDER BY msg_key
		     ON CONFLICT (msg_key) DO NOTHING RETURNING msg_key, state)
		 SELECT msg_key, state FROM ins UNION ALL SELECT m.msg_key, m.state FROM messages m JOIN k USING (msg_key)`,
		keys, patients, kinds, ats)
	var k, st string
	_, err := pgx.ForEachRow(rows, []any{&k, &st}, func() error { out[k] = st; return nil })
	if constraintOf(err) == "messages_patient_id_fkey" {
		return nil, booking.NotFound("patient")
	}
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// MarkMessage moves a still queued message to m.State. An attempt counts
// once at least: the delivery's own record, when there is one, counted it.
func (s *Store) MarkMessage(ctx context.Context, m booking.MessageMark) error {
	_, err := s.pool.Exec(ctx,
		`UPDATE messages SET state = $2, reason = $3, attempts = greatest(attempts, 1), updated_at = $4
		 WHERE msg_key = $1 AND state = 'queued'`, m.Key, m.State, m.Reason, m.At)
	return translate(err, "")
}
