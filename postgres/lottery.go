package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/slotd/slotd/booking"
)

// Lottery rounds (docs/clinic.md, "Lottery rounds"): the settings live in
// the rounds row (migrations/00028_lottery.sql), the registrations in
// round_registrations. The draw's decision is booking.DrawOrder; this file
// reads and writes.

const lotteryColumns = `lottery, registration_opens_at, registration_closes_at, selection_minutes, selection_group,
	selection_window_minutes, seed, seed_commitment, drawn_at`

// lotteryRow scans lotteryColumns.
type lotteryRow struct {
	on                     bool
	opens, closes          *time.Time
	minutes, group, window int
	seed                   []byte
	commitment             *string
	drawn                  *time.Time
}

func (l *lotteryRow) dest() []any {
	return []any{&l.on, &l.opens, &l.closes, &l.minutes, &l.group, &l.window, &l.seed, &l.commitment, &l.drawn}
}

func (l *lotteryRow) lottery() *booking.Lottery {
	if !l.on || l.opens == nil || l.closes == nil || l.commitment == nil {
		return nil
	}
	out := &booking.Lottery{RegistrationOpensAt: l.opens.UTC(), RegistrationClosesAt: l.closes.UTC(),
		SelectionMinutes: l.minutes, SelectionGroup: l.group, WindowMinutes: l.window, Seed: l.seed, Commitment: *l.commitment}
	if l.drawn != nil {
		d := l.drawn.UTC()
		out.DrawnAt = &d
	}
	return out
}

// lotteryArgs are the INSERT's values of lotteryColumns but drawn_at.
func lotteryArgs(l *booking.Lottery) []any {
	if l == nil {
		return []any{false, nil, nil, 0, 1, 0, nil, nil}
	}
	return []any{true, micro(l.RegistrationOpensAt), micro(l.RegistrationClosesAt), l.SelectionMinutes, l.SelectionGroup,
		l.WindowMinutes, l.Seed, booking.Commit(l.Seed)}
}

const registrationColumns = `id, round_id, patient_id, created_at, position, selection_at, selection_ends_at`

func scanRegistration(row pgx.Row) (booking.Registration, error) {
	var r booking.Registration
	var pos *int
	err := row.Scan(&r.ID, &r.RoundID, &r.PatientID, &r.CreatedAt, &pos, &r.SelectionAt, &r.SelectionEndsAt)
	r.CreatedAt = r.CreatedAt.UTC()
	if pos != nil {
		r.Position = *pos
	}
	r.SelectionAt, r.SelectionEndsAt = utcOrNil(r.SelectionAt), utcOrNil(r.SelectionEndsAt)
	return r, err
}

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Register registers patientID in the round's lottery. The round's row is
// read (not locked: registration and the draw are ordered by the clock,
// the draw starting only once the window has closed, and the draw's lock
// plus ON CONFLICT make every race end with one row per patient).
func (s *Store) Register(ctx context.Context, roundID, patientID int64, now time.Time) (booking.Registration, bool, error) {
	now = micro(now)
	var out booking.Registration
	existed := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// FOR SHARE: the draw (FOR UPDATE) waits for registrations in
		// flight, and a registration after the draw sees it.
		r, err := scanRound(tx.QueryRow(ctx, `SELECT `+roundColumns+` FROM rounds WHERE id = $1 FOR SHARE`, roundID))
		if err != nil {
			return err
		}
		if out, err = scanRegistration(tx.QueryRow(ctx, `SELECT `+registrationColumns+` FROM round_registrations
			WHERE round_id = $1 AND patient_id = $2`, roundID, patientID)); err == nil {
			existed = true
			return nil
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if ref := booking.RegistrationRefusal(r, r.Lottery, now); ref != nil {
			return ref
		}
		out, err = scanRegistration(tx.QueryRow(ctx, `INSERT INTO round_registrations (round_id, patient_id, created_at)
			VALUES ($1, $2, $3) ON CONFLICT (round_id, patient_id) DO NOTHING RETURNING `+registrationColumns, roundID, patientID, now))
		if errors.Is(err, pgx.ErrNoRows) {
			// A concurrent registration of the same patient committed
			// between the read and the insert: it is the one.
			existed = true
			out, err = scanRegistration(tx.QueryRow(ctx, `SELECT `+registrationColumns+` FROM round_registrations
				WHERE round_id = $1 AND patient_id = $2`, roundID, patientID))
			return err
		}
		if err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditRegistration(ctx, now, out))
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Registration{}, false, booking.NotFound("round")
	}
	if err != nil {
		return booking.Registration{}, false, translate(err, "round")
	}
	return out, existed, nil
}

// Registration returns patientID's registration in the round.
func (s *Store) Registration(ctx context.Context, roundID, patientID int64) (booking.Registration, error) {
	r, err := scanRegistration(s.pool.QueryRow(ctx, `SELECT `+registrationColumns+` FROM round_registrations
		WHERE round_id = $1 AND patient_id = $2`, roundID, patientID))
	return r, translate(err, "registration")
}

// ListRegistrations lists the round's registrations after afterID, by id.
func (s *Store) ListRegistrations(ctx context.Context, roundID, afterID int64, limit int) ([]booking.Registration, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+registrationColumns+` FROM round_registrations
		WHERE round_id = $1 AND id > $2 ORDER BY id LIMIT $3`, roundID, afterID, limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Registration, error) { return scanRegistration(r) })
	return out, translate(err, "")
}

// DrawLottery runs the round's draw once, under the round's row lock.
func (s *Store) DrawLottery(ctx context.Context, roundID int64, now time.Time) (booking.Draw, bool, error) {
	now = micro(now)
	drew := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		r, err := scanRound(tx.QueryRow(ctx, `SELECT `+roundColumns+` FROM rounds WHERE id = $1 FOR UPDATE`, roundID))
		if err != nil {
			return err
		}
		if r.Lottery != nil && r.Lottery.DrawnAt != nil {
			return nil
		}
		if ref := booking.DrawReady(r.Lottery, now); ref != nil {
			return ref
		}
		rows, _ := tx.Query(ctx, `SELECT id FROM round_registrations WHERE round_id = $1`, roundID)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		order := booking.DrawOrder(r.Lottery.Seed, ids)
		at, ends := make([]time.Time, len(order)), make([]*time.Time, len(order))
		for k := range order {
			at[k], ends[k] = r.Lottery.SelectionAt(r, k+1), r.Lottery.SelectionEndsAt(r, k+1)
		}
		if _, err := tx.Exec(ctx, `UPDATE round_registrations g SET position = v.pos, selection_at = v.at, selection_ends_at = v.ends
			FROM unnest($2::bigint[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS v(id, at, ends, pos)
			WHERE g.id = v.id AND g.round_id = $1`, roundID, order, at, ends); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE rounds SET drawn_at = $2 WHERE id = $1`, roundID, now); err != nil {
			return err
		}
		drew = true
		return writeAudit(ctx, tx, booking.AuditLotteryDrawn(ctx, now, roundID, len(order)))
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Draw{}, false, booking.NotFound("round")
	}
	if err != nil {
		return booking.Draw{}, false, translate(err, "round")
	}
	d, err := s.GetDraw(ctx, roundID)
	return d, drew, err
}

// GetDraw returns the round's draw once it ran.
func (s *Store) GetDraw(ctx context.Context, roundID int64) (booking.Draw, error) {
	var d booking.Draw
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		r, err := scanRound(tx.QueryRow(ctx, `SELECT `+roundColumns+` FROM rounds WHERE id = $1`, roundID))
		if err != nil {
			return err
		}
		if r.Lottery == nil || r.Lottery.DrawnAt == nil {
			return booking.DrawReady(r.Lottery, time.Time{})
		}
		rows, _ := tx.Query(ctx, `SELECT id FROM round_registrations WHERE round_id = $1 ORDER BY position`, roundID)
		order, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		d = booking.Draw{RoundID: roundID, Version: booking.DrawVersion, Seed: hex.EncodeToString(r.Lottery.Seed),
			Commitment: r.Lottery.Commitment, DrawnAt: *r.Lottery.DrawnAt, Order: order}
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Draw{}, booking.NotFound("round")
	}
	return d, translate(err, "round")
}

// LotteriesDue lists the undrawn lottery rounds whose registration closed.
func (s *Store) LotteriesDue(ctx context.Context, now time.Time) ([]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id FROM rounds WHERE lottery AND drawn_at IS NULL
		AND registration_closes_at <= $1 AND state <> 'DRAFT' ORDER BY id`, now)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, translate(err, "")
}
