package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

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
	return translate(s.inTx(ctx, func(tx pgx.Tx) error { return moveMarks(ctx, tx, at, booking.MarkKeep, subjects...) }), "")
}

// moveMarks is MoveMarks inside a caller's transaction, closing or opening
// the marks too (the changes that end or give back a subject's tokens).
func moveMarks(ctx context.Context, tx pgx.Tx, at time.Time, state booking.MarkChange, subjects ...booking.Subject) error {
	closed := `excluded.closed`
	if state == booking.MarkKeep {
		closed = `revocation_marks.closed`
	}
	for _, sub := range subjects {
		if _, err := tx.Exec(ctx,
			`INSERT INTO revocation_marks (role, subject, valid_after, closed) VALUES ($1, $2, $3, $4)
			 ON CONFLICT (role, subject) DO UPDATE SET valid_after = greatest(revocation_marks.valid_after, excluded.valid_after),
			     closed = `+closed,
			sub.Role, sub.ID, at, state == booking.MarkClose); err != nil {
			return err
		}
	}
	return nil
}

// MarksSince returns the marks moved after since and, with closed, the
// closed ones.
func (s *Store) MarksSince(ctx context.Context, since time.Time, closed bool) ([]booking.Mark, error) {
	return s.queryMarks(ctx, `SELECT role, subject, valid_after, closed FROM revocation_marks WHERE valid_after > $1
		 UNION SELECT role, subject, valid_after, closed FROM revocation_marks WHERE $2 AND closed`, since, closed)
}

// sqlMarksOf probes each subject's mark by its key (queryGeneric: given
// an array, PostgreSQL would plan it afresh at each sign-out).
const sqlMarksOf = `SELECT m.role, m.subject, m.valid_after, m.closed FROM unnest($1::text[], $2::text[]) AS k(role, subject),
	LATERAL (SELECT * FROM revocation_marks m WHERE m.role = k.role AND m.subject = k.subject OFFSET 0) m`

// MarksOf returns the marks of subs that exist, by their key.
func (s *Store) MarksOf(ctx context.Context, subs ...booking.Subject) ([]booking.Mark, error) {
	roles, ids := make([]string, len(subs)), make([]string, len(subs))
	for i, sub := range subs {
		roles[i], ids[i] = sub.Role, sub.ID
	}
	var out []booking.Mark
	err := s.queryGeneric(ctx, func(rows pgx.Rows) error {
		m, err := scanMark(rows)
		out = append(out, m)
		return err
	}, sqlMarksOf, roles, ids)
	return out, translate(err, "")
}

func (s *Store) queryMarks(ctx context.Context, q string, args ...any) ([]booking.Mark, error) {
	rows, _ := s.pool.Query(ctx, q, args...)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Mark, error) { return scanMark(r) })
	return out, translate(err, "")
}

func scanMark(r pgx.Row) (booking.Mark, error) {
	var m booking.Mark
	err := r.Scan(&m.Role, &m.ID, &m.ValidAfter, &m.Closed)
	m.ValidAfter = m.ValidAfter.UTC()
	return m, err
}

// closedIf is booking.MarkClose when closed, else booking.MarkOpen.
func closedIf(closed bool) booking.MarkChange {
	if closed {
		return booking.MarkClose
	}
	return booking.MarkOpen
}
