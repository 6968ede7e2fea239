package postgres

import (
	"context"
	"time"

	"github.com/slotd/slotd/booking"
)

// Calendar subscription tokens (ical.Tokens): only their hashes are stored.

// SetCalendarToken makes hash patientID's only calendar token, replacing an
// older one (which stops working at once). An unknown patient is not found.
func (s *Store) SetCalendarToken(ctx context.Context, patientID int64, hash string, now time.Time) error {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO calendar_tokens (patient_id, token_hash, created_at)
		 SELECT id, $1, $2 FROM patients WHERE id = $3
		 ON CONFLICT (patient_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at`,
		hash, now, patientID)
	if err != nil {
		return translate(err, "")
	}
	if tag.RowsAffected() == 0 {
		return booking.NotFound("patient")
	}
	return nil
}

// RevokeCalendarToken deletes patientID's calendar token; having none is
// not an error.
func (s *Store) RevokeCalendarToken(ctx context.Context, patientID int64) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM calendar_tokens WHERE patient_id = $1`, patientID)
	return translate(err, "")
}

// CalendarTokenPatient returns the patient whose token has hash, or not found.
func (s *Store) CalendarTokenPatient(ctx context.Context, hash string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT patient_id FROM calendar_tokens WHERE token_hash = $1`, hash).Scan(&id)
	if err != nil {
		return 0, translate(err, "calendar token")
	}
	return id, nil
}

// CalendarTokenCreated returns when patientID's token was made, or not found.
func (s *Store) CalendarTokenCreated(ctx context.Context, patientID int64) (time.Time, error) {
	var at time.Time
	err := s.pool.QueryRow(ctx, `SELECT created_at FROM calendar_tokens WHERE patient_id = $1`, patientID).Scan(&at)
	if err != nil {
		return time.Time{}, translate(err, "calendar token")
	}
	return at.UTC(), nil
}
