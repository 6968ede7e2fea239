package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"

	"github.com/slotd/slotd/booking"
)

// Lottery rounds (docs/clinic.md, "Lottery rounds"), mirroring
// postgres/lottery.go; the single writer connection serializes what
// PostgreSQL orders with the round's row lock.

const lotteryCols = `lottery, registration_opens_at, registration_closes_at, selection_minutes, selection_group,
	selection_window_minutes, seed, seed_commitment, drawn_at`

// lotteryRow scans lotteryCols.
type lotteryRow struct {
	on                     bool
	opens, closes, drawn   sql.NullInt64
	minutes, group, window int
	seed                   []byte
	commitment             sql.NullString
}

func (l *lotteryRow) dest() []any {
	return []any{&l.on, &l.opens, &l.closes, &l.minutes, &l.group, &l.window, &l.seed, &l.commitment, &l.drawn}
}

func (l *lotteryRow) lottery() *booking.Lottery {
	if !l.on || !l.opens.Valid || !l.closes.Valid || !l.commitment.Valid {
		return nil
	}
	out := &booking.Lottery{RegistrationOpensAt: fromTS(l.opens.Int64), RegistrationClosesAt: fromTS(l.closes.Int64),
		SelectionMinutes: l.minutes, SelectionGroup: l.group, WindowMinutes: l.window, Seed: l.seed, Commitment: l.commitment.String}
	if l.drawn.Valid {
		d := fromTS(l.drawn.Int64)
		out.DrawnAt = &d
	}
	return out
}

// normalLottery is l as stored: times to the microsecond, the commitment
// computed from the seed.
func normalLottery(l *booking.Lottery) *booking.Lottery {
	if l == nil {
		return nil
	}
	c := *l
	c.RegistrationOpensAt, c.RegistrationClosesAt = micro(l.RegistrationOpensAt), micro(l.RegistrationClosesAt)
	c.Commitment = booking.Commit(l.Seed)
	return &c
}

// lotteryArgs are the INSERT's values of lotteryCols but drawn_at.
func lotteryArgs(l *booking.Lottery) []any {
	if l == nil {
		return []any{false, nil, nil, 0, 1, 0, nil, nil}
	}
	return []any{true, ts(l.RegistrationOpensAt), ts(l.RegistrationClosesAt), l.SelectionMinutes, l.SelectionGroup,
		l.WindowMinutes, l.Seed, booking.Commit(l.Seed)}
}

const registrationCols = `id, round_id, patient_id, created_at, position, selection_at, selection_ends_at`

func scanRegistration(sc interface{ Scan(...any) error }) (booking.Registration, error) {
	var r booking.Registration
	var created int64
	var pos, at, ends sql.NullInt64
	if err := sc.Scan(&r.ID, &r.RoundID, &r.PatientID, &created, &pos, &at, &ends); err != nil {
		return r, err
	}
	r.CreatedAt, r.Position = fromTS(created), int(pos.Int64)
	r.SelectionAt, r.SelectionEndsAt = optTS(at), optTS(ends)
	return r, nil
}

// Register registers patientID in the round's lottery, in one write
// transaction: a retry (or a race of them) finds the first registration.
func (s *Store) Register(ctx context.Context, roundID, patientID int64, now time.Time) (booking.Registration, bool, error) {
	now = micro(now)
	var out booking.Registration
	existed := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := scanRound(tx.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE id = ?`, roundID))
		if err != nil {
			return err
		}
		out, err = scanRegistration(tx.QueryRowContext(ctx, `SELECT `+registrationCols+` FROM round_registrations
			WHERE round_id = ? AND patient_id = ?`, roundID, patientID))
		if err == nil {
			existed = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if ref := booking.RegistrationRefusal(r, r.Lottery, now); ref != nil {
			return ref
		}
		out, err = scanRegistration(tx.QueryRowContext(ctx, `INSERT INTO round_registrations (round_id, patient_id, created_at)
			VALUES (?, ?, ?) RETURNING `+registrationCols, roundID, patientID, ts(now)))
		if err != nil {
			return err
		}
		return writeAudit(ctx, tx, booking.AuditRegistration(ctx, now, out))
	})
	if err != nil {
		return booking.Registration{}, false, mapErr(err, "round")
	}
	return out, existed, nil
}

// Registration returns patientID's registration in the round.
func (s *Store) Registration(ctx context.Context, roundID, patientID int64) (booking.Registration, error) {
	r, err := scanRegistration(s.reader.QueryRowContext(ctx, `SELECT `+registrationCols+` FROM round_registrations
		WHERE round_id = ? AND patient_id = ?`, roundID, patientID))
	if err != nil {
		return booking.Registration{}, mapErr(err, "registration")
	}
	return r, nil
}

// ListRegistrations lists the round's registrations after afterID, by id.
func (s *Store) ListRegistrations(ctx context.Context, roundID, afterID int64, limit int) ([]booking.Registration, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+registrationCols+` FROM round_registrations
		WHERE round_id = ? AND id > ? ORDER BY id LIMIT ?`, roundID, afterID, limit)
	if err != nil {
		return nil, mapErr(err, "")
	}
	defer rows.Close()
	out := []booking.Registration{}
	for rows.Next() {
		r, err := scanRegistration(rows)
		if err != nil {
			return nil, mapErr(err, "")
		}
		out = append(out, r)
	}
	return out, mapErr(rows.Err(), "")
}

// DrawLottery runs the round's draw once, in one write transaction.
func (s *Store) DrawLottery(ctx context.Context, roundID int64, now time.Time) (booking.Draw, bool, error) {
	now = micro(now)
	drew := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := scanRound(tx.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE id = ?`, roundID))
		if err != nil {
			return err
		}
		if r.Lottery != nil && r.Lottery.DrawnAt != nil {
			return nil
		}
		if ref := booking.DrawReady(r.Lottery, now); ref != nil {
			return ref
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM round_registrations WHERE round_id = ?`, roundID)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		order := booking.DrawOrder(r.Lottery.Seed, ids)
		for k, id := range order {
			if _, err := tx.ExecContext(ctx, `UPDATE round_registrations SET position = ?, selection_at = ?, selection_ends_at = ? WHERE id = ?`,
				k+1, ts(r.Lottery.SelectionAt(r, k+1)), nullTS(r.Lottery.SelectionEndsAt(r, k+1)), id); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE rounds SET drawn_at = ? WHERE id = ?`, ts(now), roundID); err != nil {
			return err
		}
		drew = true
		return writeAudit(ctx, tx, booking.AuditLotteryDrawn(ctx, now, roundID, len(order)))
	})
	if err != nil {
		return booking.Draw{}, false, mapErr(err, "round")
	}
	d, err := s.GetDraw(ctx, roundID)
	return d, drew, err
}

// GetDraw returns the round's draw once it ran.
func (s *Store) GetDraw(ctx context.Context, roundID int64) (booking.Draw, error) {
	r, err := scanRound(s.reader.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE id = ?`, roundID))
	if err != nil {
		return booking.Draw{}, mapErr(err, "round")
	}
	if r.Lottery == nil || r.Lottery.DrawnAt == nil {
		return booking.Draw{}, booking.DrawReady(r.Lottery, time.Time{})
	}
	// The draw is written whole in one transaction: the order read after
	// drawn_at is the final one.
	rows, err := s.reader.QueryContext(ctx, `SELECT id FROM round_registrations WHERE round_id = ? ORDER BY position`, roundID)
	if err != nil {
		return booking.Draw{}, mapErr(err, "")
	}
	defer rows.Close()
	order := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return booking.Draw{}, mapErr(err, "")
		}
		order = append(order, id)
	}
	return booking.Draw{RoundID: roundID, Version: booking.DrawVersion, Seed: hex.EncodeToString(r.Lottery.Seed),
		Commitment: r.Lottery.Commitment, DrawnAt: *r.Lottery.DrawnAt, Order: order}, mapErr(rows.Err(), "")
}

// LotteriesDue lists the undrawn lottery rounds whose registration closed.
func (s *Store) LotteriesDue(ctx context.Context, now time.Time) ([]int64, error) {
	ids, err := queryIDs(ctx, s.reader, `SELECT id FROM rounds WHERE lottery AND drawn_at IS NULL
		AND registration_closes_at <= ? AND state <> 'DRAFT' ORDER BY id`, ts(now))
	return ids, mapErr(err, "")
}
