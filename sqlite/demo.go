package sqlite

import (
	"context"
	"database/sql"

	"github.com/slotd/slotd/booking"
)

// ClaimDemo marks an empty database as the demo's (booking.DecideDemo),
// on the writer: the check and the mark are one write transaction.
func (s *Store) ClaimDemo(ctx context.Context) (bool, error) {
	var fill bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		var marked, holds bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM clinic_settings WHERE name = ? AND value = 'true')`,
			booking.DemoSetting).Scan(&marked); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, booking.HoldsDataSQL).Scan(&holds); err != nil {
			return err
		}
		f, err := booking.DecideDemo(marked, !holds)
		if err != nil || !f {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO clinic_settings (name, value) VALUES (?, 'true') ON CONFLICT (name) DO NOTHING`,
			booking.DemoSetting)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		fill = n == 1
		return err
	})
	return fill, mapErr(err, "")
}

// Holdings reads the demo's marker and the patients and active
// appointments (booking.HoldingsSQL).
func (s *Store) Holdings(ctx context.Context) (booking.Holdings, error) {
	var h booking.Holdings
	err := s.reader.QueryRowContext(ctx, booking.HoldingsSQL).Scan(&h.Demo, &h.Patients, &h.ActiveAppointments)
	return h, mapErr(err, "")
}
