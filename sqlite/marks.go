package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
)

// MoveMarks moves the subjects' revocation marks to at (never back), in
// one transaction; a closed mark stays closed.
func (s *Store) MoveMarks(ctx context.Context, at time.Time, subjects ...booking.Subject) error {
	for _, sub := range subjects {
		if err := checkSubject(sub); err != nil {
			return err
		}
	}
	return mapErr(s.write(ctx, func(tx *sql.Tx) error { return moveMarks(ctx, tx, at, keepClosed, subjects...) }), "")
}

// checkSubject refuses a subject no token can name, before the database's
// constraints would.
func checkSubject(sub booking.Subject) error {
	switch sub.Role {
	case booking.RolePatient, booking.RoleDoctor, booking.RoleAdmin:
	default:
		return booking.Errorf(booking.CodeInvalidRequest, "unknown role %q", sub.Role)
	}
	if sub.ID == "" || len(sub.ID) > booking.MaxMarkSubject {
		return booking.Errorf(booking.CodeInvalidRequest, "a subject is 1 to %d characters", booking.MaxMarkSubject)
	}
	return nil
}

// markState is what a move does to a mark's closed flag.
type markState int

const (
	keepClosed markState = iota
	closeMark
	openMark
)

// moveMarks is MoveMarks inside a caller's transaction, closing or opening
// the marks too (the changes that end or give back a subject's tokens).
func moveMarks(ctx context.Context, tx *sql.Tx, at time.Time, state markState, subjects ...booking.Subject) error {
	closed := `excluded.closed`
	if state == keepClosed {
		closed = `revocation_marks.closed`
	}
	for _, sub := range subjects {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO revocation_marks (role, subject, valid_after, closed) VALUES (?, ?, ?, ?)
			 ON CONFLICT (role, subject) DO UPDATE SET valid_after = max(valid_after, excluded.valid_after), closed = `+closed,
			sub.Role, sub.ID, ts(at), state == closeMark); err != nil {
			return err
		}
	}
	return nil
}

// MarksSince returns the marks moved after since and, with closed, the
// closed ones.
func (s *Store) MarksSince(ctx context.Context, since time.Time, closed bool) ([]booking.Mark, error) {
	rows, err := s.reader.QueryContext(ctx,
		`SELECT role, subject, valid_after, closed FROM revocation_marks WHERE valid_after > ?
		 UNION SELECT role, subject, valid_after, closed FROM revocation_marks WHERE ? AND closed = 1`, ts(since), closed)
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

// closedIf is closeMark when closed, else openMark.
func closedIf(closed bool) markState {
	if closed {
		return closeMark
	}
	return openMark
}
