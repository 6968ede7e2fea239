package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/slotd/slotd/booking"
)

// Calendar subscription tokens (ical.Tokens): only their hashes are stored.

// SetCalendarToken makes hash patientID's only calendar token, replacing an
// older one (which stops working at once). An unknown patient is not found.
func (s *Store) SetCalendarToken(ctx context.Context, patientID int64, hash string, now time.Time) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`INSERT INTO calendar_tokens (patient_id, token_hash, created_at)
			 SELECT id, ?, ? FROM patients WHERE id = ?
			 ON CONFLICT (patient_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
			hash, ts(now), patientID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return booking.NotFound("patient")
		}
		return nil
	})
	return mapErr(err, "")
}

// RevokeCalendarToken deletes patientID's calendar token; having none is
// not an error.
func (s *Store) RevokeCalendarToken(ctx context.Context, patientID int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM calendar_tokens WHERE patient_id = ?`, patientID)
		return err
	})
	return mapErr(err, "")
}

// CalendarTokenPatient returns the patient whose token has hash, or not found.
func (s *Store) CalendarTokenPatient(ctx context.Context, hash string) (int64, error) {
	var id int64
	err := s.reader.QueryRowContext(ctx, `SELECT patient_id FROM calendar_tokens WHERE token_hash = ?`, hash).Scan(&id)
	if err != nil {
		return 0, mapErr(err, "calendar token")
	}
	return id, nil
}

// CalendarTokenCreated returns when patientID's token was made, or not found.
func (s *Store) CalendarTokenCreated(ctx context.Context, patientID int64) (time.Time, error) {
	var at int64
	err := s.reader.QueryRowContext(ctx, `SELECT created_at FROM calendar_tokens WHERE patient_id = ?`, patientID).Scan(&at)
	if err != nil {
		return time.Time{}, mapErr(err, "calendar token")
	}
	return fromTS(at), nil
}
