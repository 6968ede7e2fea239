package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/slotd/slotd/booking"
)

// MoveMarks moves the subjects' revocation marks to at (never back), in
// one transaction; a closed mark stays closed.
func (s *Store) MoveMarks(ctx context.Context, at time.Time, subjects ...booking.Subject) error {
	for _, sub := range subjects {
		if err := sub.Check(); err != nil {
			return err
		}
	}
	return mapErr(s.write(ctx, func(tx *sql.Tx) error { return moveMarks(ctx, tx, at, booking.MarkKeep, subjects...) }), "")
}

// moveMarks is MoveMarks inside a caller's transaction, closing or opening
// the marks too (the changes that end or give back a subject's tokens).
func moveMarks(ctx context.Context, tx *sql.Tx, at time.Time, state booking.MarkChange, subjects ...booking.Subject) error {
	closed := `excluded.closed`
	if state == booking.MarkKeep {
		closed = `revocation_marks.closed`
	}
	for _, sub := range subjects {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO revocation_marks (role, subject, valid_after, closed) VALUES (?, ?, ?, ?)
			 ON CONFLICT (role, subject) DO UPDATE SET valid_after = max(valid_after, excluded.valid_after), closed = `+closed,
			sub.Role, sub.ID, ts(at), state == booking.MarkClose); err != nil {
			return err
		}
	}
	return nil
}

// MarksSince returns the marks moved after since and, with closed, the
// closed ones.
func (s *Store) MarksSince(ctx context.Context, since time.Time, closed bool) ([]booking.Mark, error) {
	return s.queryMarks(ctx, `SELECT role, subject, valid_after, closed FROM revocation_marks WHERE valid_after > ?
		 UNION SELECT role, subject, valid_after, closed FROM revocation_marks WHERE ? AND closed = 1`, ts(since), closed)
}

// MarksOf returns the marks of subs that exist, by their key.
func (s *Store) MarksOf(ctx context.Context, subs ...booking.Subject) ([]booking.Mark, error) {
	keys, err := json.Marshal(subs)
	if err != nil {
		return nil, err
	}
	return s.queryMarks(ctx, `SELECT m.role, m.subject, m.valid_after, m.closed FROM json_each(?) k
		JOIN revocation_marks m ON m.role = json_extract(k.value, '$.Role') AND m.subject = json_extract(k.value, '$.ID')`, string(keys))
}

func (s *Store) queryMarks(ctx context.Context, q string, args ...any) ([]booking.Mark, error) {
	rows, err := s.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	var out []booking.Mark
	for rows.Next() {
		var m booking.Mark
		var after int64
		if err := rows.Scan(&m.Role, &m.ID, &after, &m.Closed); err != nil {
			return nil, mapErr(err, "")
		}
		m.ValidAfter = fromTS(after)
		out = append(out, m)
	}
	return out, mapErr(rows.Err(), "")
}

// closedIf is booking.MarkClose when closed, else booking.MarkOpen.
func closedIf(closed bool) booking.MarkChange {
	if closed {
		return booking.MarkClose
	}
	return booking.MarkOpen
}
