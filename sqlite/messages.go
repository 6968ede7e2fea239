package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/slotd/slotd/booking"
)

// The messages methods implement booking.MessageStore: delivery records,
// moved as booking.ApplyMessageAttempt and ApplyMessageReport decide.

// A sign-up code's message has no patient (NULL), read as 0.
const messageCols = `id, coalesce(patient_id, 0), kind, channel, state, coalesce(provider_id, ''), reason, attempts, created_at, updated_at`

func scanMessage(row interface{ Scan(...any) error }) (booking.Message, error) {
	var m booking.Message
	var created, updated int64
	err := row.Scan(&m.ID, &m.PatientID, &m.Kind, &m.Channel, &m.State, &m.ProviderID, &m.Reason, &m.Attempts, &created, &updated)
	m.CreatedAt, m.UpdatedAt = fromTS(created), fromTS(updated)
	return m, err
}

// RecordMessages writes attempts of messages in one transaction (one
// writer: nothing moves them meanwhile).
func (s *Store) RecordMessages(ctx context.Context, as []booking.MessageAttempt) (map[string]booking.Message, error) {
	out := make(map[string]booking.Message, len(as))
	if len(as) == 0 {
		return out, nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		cur := make(map[string]booking.Message, len(as))
		for _, a := range as {
			m, err := scanMessage(tx.QueryRowContext(ctx, `SELECT `+messageCols+` FROM messages WHERE msg_key = ?`, a.Key))
			switch {
			case err == nil:
				cur[a.Key] = m
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		for k, m := range booking.ApplyMessageAttempts(cur, as) {
			m, err := scanMessage(tx.QueryRowContext(ctx,
				`INSERT INTO messages (msg_key, patient_id, kind, channel, state, provider_id, reason, attempts, created_at, updated_at)
				 VALUES (?1, nullif(?2, 0), ?3, ?4, ?5, nullif(?6, ''), ?7, ?8, ?9, ?10)
				 ON CONFLICT (msg_key) DO UPDATE SET channel = ?4, state = ?5, provider_id = nullif(?6, ''), reason = ?7,
				     attempts = ?8, updated_at = ?10
				 RETURNING `+messageCols,
				k, m.PatientID, m.Kind, m.Channel, m.State, m.ProviderID, m.Reason, m.Attempts, ts(m.CreatedAt), ts(m.UpdatedAt)))
			if err != nil {
				return err
			}
			out[k] = m
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err, "patient")
	}
	return out, nil
}

// ReportMessage applies a provider's report to its message.
func (s *Store) ReportMessage(ctx context.Context, r booking.MessageReport) (booking.Message, bool, error) {
	var out booking.Message
	var changed bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		cur, err := scanMessage(tx.QueryRowContext(ctx, `SELECT `+messageCols+` FROM messages WHERE provider_id = ?`, r.ProviderID))
		if errors.Is(err, sql.ErrNoRows) {
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
		_, err = tx.ExecContext(ctx, `UPDATE messages SET state = ?, reason = ?, updated_at = ? WHERE id = ?`,
			m.State, m.Reason, ts(m.UpdatedAt), m.ID)
		return err
	})
	if err != nil {
		return booking.Message{}, false, mapErr(err, "")
	}
	return out, changed, nil
}

// PatientMessages lists a patient's messages, newest first.
func (s *Store) PatientMessages(ctx context.Context, patientID int64, p booking.Page) ([]booking.Message, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+messageCols+` FROM messages WHERE patient_id = ?1 AND (?2 = 0 OR id < ?2) ORDER BY id DESC LIMIT ?3`,
		patientID, p.After, rowLimit(p))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, m)
	}
	return out, mapErr(rows.Err(), "")
}

// DeliveryStates returns the states of the keys' records, in one read.
func (s *Store) DeliveryStates(ctx context.Context, keys []string) (map[string]string, error) {
	out := make(map[string]string, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	js, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	// SQLite has no arrays: the keys go as one JSON array.
	rows, err := s.reader.QueryContext(ctx, `SELECT msg_key, state FROM messages WHERE msg_key IN (SELECT value FROM json_each(?))`, string(js))
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	for rows.Next() {
		var k, st string
		if err := rows.Scan(&k, &st); err != nil {
			return nil, mapErr(err, "")
		}
		out[k] = st
	}
	return out, mapErr(rows.Err(), "")
}

// MarkMessage records m's message as m.State unless a record moved it
// past queued.
func (s *Store) MarkMessage(ctx context.Context, m booking.MessageMark) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO messages (msg_key, patient_id, kind, channel, state, reason, attempts, created_at, updated_at)
			 VALUES (?1, ?2, ?3, 'none', ?4, ?5, 1, ?6, ?6)
			 ON CONFLICT (msg_key) DO UPDATE SET state = excluded.state, reason = excluded.reason,
			     attempts = max(attempts, 1), updated_at = excluded.updated_at
			 WHERE state = 'queued'`, m.Key, m.PatientID, m.Kind, m.State, m.Reason, ts(m.At))
		return err
	})
	return mapErr(err, "patient")
}
