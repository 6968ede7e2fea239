package postgres

import (
	"context"
	"errors"
	"slices"
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
	err := row.Scan(messageDest(&m)...)
	m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return m, err
}

// messageDest is where messageCols scan into m.
func messageDest(m *booking.Message) []any {
	return []any{&m.ID, &m.PatientID, &m.Kind, &m.Channel, &m.State, &m.ProviderID, &m.Reason, &m.Attempts, &m.CreatedAt, &m.UpdatedAt}
}

// RecordMessages writes attempts of messages in one transaction. Each
// key's advisory lock, taken in key order, stands for its row until the
// row exists (a message's first attempt writes it); the rows are then
// locked too, against a provider's report, so that two attempts of one
// message (two instances) count both.
func (s *Store) RecordMessages(ctx context.Context, as []booking.MessageAttempt) (map[string]booking.Message, error) {
	if len(as) == 0 {
		return map[string]booking.Message{}, nil
	}
	keys := make([]string, 0, len(as))
	for _, a := range as {
		keys = append(keys, a.Key)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var out map[string]booking.Message
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(sqlGenericPlans) // as queryGeneric's statements
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended('message:' || k, 0)) FROM unnest($1::text[]) AS k`, keys)
		b.Queue(`SELECT msg_key, `+messageCols+` FROM unnest($1::text[]) AS k(want),
			LATERAL (SELECT * FROM messages m WHERE m.msg_key = k.want FOR UPDATE) m`, keys)
		br := tx.SendBatch(ctx, b)
		for range 2 {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return err
			}
		}
		cur, err := scanKeyedMessages(br.Query())
		if err := errors.Join(err, br.Close()); err != nil {
			return err
		}
		next := booking.ApplyMessageAttempts(cur, as)
		n := len(keys)
		patients, kinds, channels, states := make([]int64, n), make([]string, n), make([]string, n), make([]string, n)
		providers, reasons, attempts := make([]string, n), make([]string, n), make([]int, n)
		created, updated := make([]time.Time, n), make([]time.Time, n)
		for i, k := range keys {
			m := next[k]
			patients[i], kinds[i], channels[i], states[i] = m.PatientID, m.Kind, m.Channel, m.State
			providers[i], reasons[i], attempts[i], created[i], updated[i] = m.ProviderID, m.Reason, m.Attempts, m.CreatedAt, m.UpdatedAt
		}
		// In key order, as the advisory locks: two batches never wait on
		// each other's new rows in a cycle.
		out, err = scanKeyedMessages(tx.Query(ctx,
			`INSERT INTO messages (msg_key, patient_id, kind, channel, state, provider_id, reason, attempts, created_at, updated_at)
			 SELECT k, nullif(p, 0), kind, ch, st, nullif(pid, ''), r, n, c, u
			 FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[],
			             $9::timestamptz[], $10::timestamptz[]) AS v(k, p, kind, ch, st, pid, r, n, c, u)
			 ON CONFLICT (msg_key) DO UPDATE SET channel = excluded.channel, state = excluded.state,
			     provider_id = excluded.provider_id, reason = excluded.reason, attempts = excluded.attempts,
			     updated_at = excluded.updated_at
			 RETURNING msg_key, `+messageCols,
			keys, patients, kinds, channels, states, providers, reasons, attempts, created, updated))
		return err
	})
	if constraintOf(err) == "messages_patient_id_fkey" {
		return nil, booking.NotFound("patient")
	}
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// scanKeyedMessages reads rows of msg_key and messageCols, by key.
func scanKeyedMessages(rows pgx.Rows, err error) (map[string]booking.Message, error) {
	if err != nil {
		return nil, err
	}
	out := map[string]booking.Message{}
	for rows.Next() {
		var k string
		var m booking.Message
		if err := rows.Scan(append([]any{&k}, messageDest(&m)...)...); err != nil {
			rows.Close()
			return nil, err
		}
		m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
		out[k] = m
	}
	return out, rows.Err()
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

// sqlDeliveryStates probes each key's record by the unique key
// (queryGeneric).
const sqlDeliveryStates = `SELECT m.msg_key, m.state FROM unnest($1::text[]) AS k(want),
	LATERAL (SELECT msg_key, state FROM messages m WHERE m.msg_key = k.want OFFSET 0) m`

// DeliveryStates returns the states of the keys' records, in one read.
func (s *Store) DeliveryStates(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	var k, st string
	err := s.queryGeneric(ctx, func(rows pgx.Rows) error {
		err := rows.Scan(&k, &st)
		out[k] = st
		return err
	}, sqlDeliveryStates, keys)
	if err != nil {
		return nil, translate(err, "")
	}
	return out, nil
}

// MarkMessage records m's message as m.State unless a record moved it
// past queued, under its key's advisory lock as RecordMessages writes. An
// attempt counts once at least: the delivery's own record, when there is
// one, counted it.
func (s *Store) MarkMessage(ctx context.Context, m booking.MessageMark) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`SELECT pg_advisory_xact_lock(hashtextextended('message:' || $1::text, 0))`, m.Key)
		b.Queue(`INSERT INTO messages (msg_key, patient_id, kind, channel, state, reason, attempts, created_at, updated_at)
			 VALUES ($1, $2, $3, 'none', $4, $5, 1, $6, $6)
			 ON CONFLICT (msg_key) DO UPDATE SET state = excluded.state, reason = excluded.reason,
			     attempts = greatest(messages.attempts, 1), updated_at = excluded.updated_at
			 WHERE messages.state = 'queued'`, m.Key, m.PatientID, m.Kind, m.State, m.Reason, m.At)
		return tx.SendBatch(ctx, b).Close()
	})
	if constraintOf(err) == "messages_patient_id_fkey" {
		return booking.NotFound("patient")
	}
	return translate(err, "")
}
